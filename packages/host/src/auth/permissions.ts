/**
 * Roles and what they grant (issue: access control): per action, the entities (or `*`) a role
 * may read, create, update, delete, and the methods (`Entity.Method`, `Entity.*`, `*`, or
 * `read` for every Read method) it may call, whose records' change history it may read, and
 * whose changes it may have sent to webhooks (registering and managing their subscriptions: the
 * tenant's administration of them). A caller has the union of its roles' grants; a delegated
 * token's roles come from its scopes.
 */
import { forbidden } from "@bizdata/core";
import type { Access } from "@bizdata/odata";
import type { Principal } from "./principal.js";
import { SCOPES } from "./trusted-issuers.js";

type Names = "*" | readonly string[];

export interface RoleGrants {
  readonly read?: Names;
  readonly create?: Names;
  readonly update?: Names;
  readonly delete?: Names;
  /** `Entity.Method`, `Entity.*`, `*`, or `read` (every Read method) */
  readonly call?: Names;
  /** the entities whose records' `$history` (who changed what, when) the role may read, besides reading them */
  readonly history?: Names;
  /** the entities whose changes the role may subscribe webhooks to (webhooks/webhook-routes.ts), besides reading them */
  readonly webhooks?: Names;
}

export type Roles = Readonly<Record<string, RoleGrants>>;

/** `admin` may do everything, `reader` read and call Read methods (not read who changed what, nor register webhooks) */
export const defaultRoles: Roles = {
  admin: { read: "*", create: "*", update: "*", delete: "*", call: "*", history: "*", webhooks: "*" },
  reader: { read: "*", call: ["read"] },
};

export type Action = "read" | "create" | "update" | "delete" | "history" | "webhooks";

const grants = (names: Names | undefined, name: string) => names === "*" || (names?.includes(name) ?? false);

/**
 * A delegated token carries the intersection of its user's grants and its scopes:
 * `bizdata.read` allows reading and Read methods, `bizdata.write` everything its roles grant.
 */
function scopeAllows(principal: Principal, reading: boolean): boolean {
  if (principal.scopes === undefined) return true;
  return principal.scopes.includes(SCOPES.write) || (reading && principal.scopes.includes(SCOPES.read));
}

export function can(roles: Roles, principal: Principal, action: Action, entity: string): boolean {
  if (!scopeAllows(principal, action === "read" || action === "history")) return false;
  // a record's history shows what it held, and so may a webhook's event: only to who may read it
  if ((action === "history" || action === "webhooks") && !can(roles, principal, "read", entity)) return false;
  return principal.roles.some((role) => grants(roles[role]?.[action], entity));
}

export function canCall(roles: Roles, principal: Principal, entity: string, method: string, isRead: boolean): boolean {
  if (!scopeAllows(principal, isRead)) return false;
  return principal.roles.some((role) => {
    const call = roles[role]?.call;
    if (call === undefined) return false;
    if (call === "*") return true;
    return call.includes(`${entity}.${method}`) || call.includes(`${entity}.*`) || (isRead && call.includes("read"));
  });
}

const doing: Record<Action, (entity: string) => string> = {
  read: (e) => `reading ${e}`,
  create: (e) => `creating ${e}`,
  update: (e) => `updating ${e}`,
  delete: (e) => `deleting ${e}`,
  history: (e) => `reading the history of ${e}`,
  webhooks: (e) => `sending the changes of ${e} to webhooks`,
};

/** throws 403 unless the caller may `action` every entity named */
export function requireAll(roles: Roles, principal: Principal, action: Action, entities: readonly string[]): void {
  const denied = entities.find((e) => !can(roles, principal, action, e));
  if (denied !== undefined) throw forbidden(doing[action](denied));
}

/** whether the caller may make `access` now (a workflow asks before it commits, closes or answers) */
export function allows(roles: Roles, principal: Principal, access: Access): boolean {
  switch (access.kind) {
    case "read":
      return access.entities.every((e) => can(roles, principal, "read", e));
    case "call":
      return canCall(roles, principal, access.entity, access.method, access.type === "read");
    default:
      return can(roles, principal, access.kind, access.entity);
  }
}

/** throws 403 unless the caller may make `access` (what the OData service asks before it reads or writes) */
export function authorize(roles: Roles, principal: Principal, access: Access): void {
  if (access.kind === "read") requireAll(roles, principal, "read", access.entities);
  else if (access.kind !== "call") requireAll(roles, principal, access.kind, [access.entity]);
  else if (!canCall(roles, principal, access.entity, access.method, access.type === "read"))
    throw forbidden(`calling ${access.entity}.${access.method}`);
}
