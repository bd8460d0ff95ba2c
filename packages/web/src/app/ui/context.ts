/** What every page works with: the service, its model, and what the signed-in caller may do. */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Http } from "../service/http.js";
import type { ModelView } from "../service/model-view.js";

export interface Rights {
  readonly tenant?: string;
  readonly user?: string;
  /** whether the caller may `action` records of `entity` */
  may(action: "create" | "update" | "delete", entity: string): boolean;
  /** whether the caller may call `entity.method` */
  mayCall(entity: string, method: string): boolean;
}

export interface Session {
  readonly http: Http;
  readonly model: ModelView;
  readonly rights: Rights;
}

export const SessionContext = createContext<Session | undefined>(undefined);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === undefined) throw new Error("useSession outside a signed-in page");
  return session;
}

/** `#/Set` and `#/Set(guid)` */
export const listHref = (set: string) => `#/${encodeURIComponent(set)}`;
export const recordHref = (set: string, guid: string) => `#/${encodeURIComponent(set)}(${guid})`;
