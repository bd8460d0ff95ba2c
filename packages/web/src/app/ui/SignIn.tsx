/**
 * The page before signing in: a button that goes to the authorization server's sign-in, or,
 * for a service without one, its own password sign-in as a form.
 */
import { useId, useState } from "preact/hooks";
import { passwordSignIn, type SignInMethod, startSignIn } from "../auth/session.js";
import { t } from "../i18n.js";

export function SignIn(props: {
  readonly method: SignInMethod;
  readonly clientId?: string;
  readonly failure?: string;
  readonly onSignedIn: () => void;
}) {
  const { method } = props;
  const [failure, setFailure] = useState(props.failure);
  const id = useId();
  return (
    <main class="sign-in">
      <h1>{t("appTitle")}</h1>
      <p>{t("signInIntro")}</p>
      {failure && (
        <p class="note error" role="alert">
          {t("signInFailed", { reason: failure })}
        </p>
      )}
      {method.kind === "oauth" ? (
        <button
          type="button"
          class="primary"
          onClick={() => startSignIn(method, props.clientId).catch((err: Error) => setFailure(err.message))}
        >
          {t("signIn")}
        </button>
      ) : (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            const form = new FormData(e.currentTarget);
            const ok = await passwordSignIn(
              method,
              String(form.get("tenant")),
              String(form.get("username")),
              String(form.get("password")),
            );
            if (ok) props.onSignedIn();
            else setFailure("401");
          }}
        >
          <label for={`${id}-tenant`}>{t("tenantLabel")}</label>
          <input id={`${id}-tenant`} name="tenant" autoComplete="organization" required />
          <label for={`${id}-user`}>{t("userLabel")}</label>
          <input id={`${id}-user`} name="username" autoComplete="username" required />
          <label for={`${id}-password`}>{t("passwordLabel")}</label>
          <input id={`${id}-password`} name="password" type="password" autoComplete="current-password" required />
          <button type="submit" class="primary">
            {t("signIn")}
          </button>
        </form>
      )}
    </main>
  );
}
