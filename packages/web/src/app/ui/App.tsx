/** The signed-in app: a header with who is signed in to which tenant, and the page the address names. */
import { useEffect, useState } from "preact/hooks";
import { t } from "../i18n.js";
import { listHref, useSession } from "./context.js";
import { ListPage } from "./ListPage.js";
import { ObjectPage } from "./ObjectPage.js";

/** `#/Set` → a list, `#/Set(guid)` → an object page, anything else → the entity sets */
function route(hash: string): { set?: string; guid?: string } {
  const match = /^#\/([^(/]+)(?:\(([0-9a-fA-F-]{36})\))?$/.exec(hash);
  if (match === null) return {};
  return { set: decodeURIComponent(match[1]!), ...(match[2] && { guid: match[2] }) };
}

export function App(props: { readonly onSignOut: () => void }) {
  const { model, rights } = useSession();
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = () => setHash(location.hash);
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  const { set, guid } = route(hash);
  const entity =
    set === undefined ? undefined : model.entities.get(model.sets.find((s) => s.name === set)?.entity ?? "");
  useEffect(() => {
    document.title = entity ? `${entity.pluralLabel} · ${t("appTitle")}` : t("appTitle");
  }, [entity]);
  return (
    <>
      <header class="top">
        <a class="brand" href={listHref("")}>
          {t("appTitle")}
        </a>
        <nav aria-label={t("entitySets")}>
          <ul>
            {model.sets.map((s) => (
              <li key={s.name}>
                <a href={listHref(s.name)} aria-current={s.name === set ? "page" : undefined}>
                  {model.entities.get(s.entity)?.pluralLabel ?? s.name}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <p class="who">
          {rights.user && <span>{t("signedInAs", { user: rights.user })}</span>}{" "}
          {rights.tenant && <span class="tenant">{t("tenant", { tenant: rights.tenant })}</span>}{" "}
          <button type="button" onClick={props.onSignOut}>
            {t("signOut")}
          </button>
        </p>
      </header>
      {entity?.set === undefined ? (
        <main>
          <h1>{t("entitySets")}</h1>
          <ul class="sets">
            {model.sets.map((s) => (
              <li key={s.name}>
                <a href={listHref(s.name)}>{model.entities.get(s.entity)?.pluralLabel ?? s.name}</a>
              </li>
            ))}
          </ul>
        </main>
      ) : guid === undefined ? (
        <ListPage key={entity.set} entity={entity} />
      ) : (
        <ObjectPage key={`${entity.set}(${guid})`} entity={entity} guid={guid} />
      )}
    </>
  );
}
