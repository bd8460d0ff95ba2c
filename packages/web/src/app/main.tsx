/**
 * Starts the app: reads config.json beside the page, finishes a sign-in the authorization server
 * sent the browser back from, and once signed in reads the service's model (`$metadata` as CSDL
 * JSON) and what the caller may do (`{service}/auth/me`; a service without it is taken to allow
 * everything, and refuses what it does not), then shows the page the address names.
 */
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { discover, finishSignIn, type SignInMethod, sessionTokens, signOut } from "./auth/session.js";
import { language, t } from "./i18n.js";
import { createHttp } from "./service/http.js";
import { readModel } from "./service/model-view.js";
import { App } from "./ui/App.js";
import { type Rights, type Session, SessionContext } from "./ui/context.js";
import { SignIn } from "./ui/SignIn.js";

interface Config {
  readonly service?: string;
  readonly clientId?: string;
}

const rightsOf = (me: any): Rights =>
  me === undefined
    ? { may: () => true, mayCall: () => true }
    : {
        tenant: me.tenant,
        user: me.user,
        may: (action, entity) => (me.entities?.[entity] ?? []).includes(action),
        mayCall: (entity, method) => (me.methods ?? []).includes(`${entity}.${method}`),
      };

function Root(props: { readonly config: Config }) {
  const root = new URL(props.config.service ?? "/api", location.href).href.replace(/\/$/, "");
  const [state, setState] = useState<
    | { kind: "loading" }
    | { kind: "signedOut"; method: SignInMethod; failure?: string }
    | { kind: "ready"; session: Session }
  >({ kind: "loading" });

  const start = async (failure?: string) => {
    if (sessionTokens.access() === undefined) {
      setState({ kind: "signedOut", method: await discover(root), ...(failure && { failure }) });
      return;
    }
    const http = createHttp(root, sessionTokens, () => void start());
    const [metadata, me] = await Promise.all([
      http.request("GET", "/$metadata?$format=json"),
      http.request("GET", "/auth/me"),
    ]);
    if (metadata.status !== 200) {
      signOut();
      return start(`$metadata: ${metadata.status}`);
    }
    setState({
      kind: "ready",
      session: { http, model: readModel(metadata.body), rights: rightsOf(me.status === 200 ? me.body : undefined) },
    });
  };

  useEffect(() => {
    document.documentElement.lang = language;
    finishSignIn().then(
      () => start(),
      (err: Error) => start(err.message),
    );
  }, []);

  switch (state.kind) {
    case "loading":
      return <main aria-busy="true">{t("loading")}</main>;
    case "signedOut":
      return (
        <SignIn
          method={state.method}
          {...(props.config.clientId && { clientId: props.config.clientId })}
          {...(state.failure && { failure: state.failure })}
          onSignedIn={() => void start()}
        />
      );
    case "ready":
      return (
        <SessionContext.Provider value={state.session}>
          <App
            onSignOut={() => {
              signOut();
              void start();
            }}
          />
        </SessionContext.Provider>
      );
  }
}

const config: Config = await fetch(new URL("config.json", location.href))
  .then((res) => (res.ok ? res.json() : {}))
  .catch(() => ({}));
render(<Root config={config} />, document.getElementById("app")!);
