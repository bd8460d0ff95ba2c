/**
 * `GET {base}/auth/me`: who the token is for and what it may do now, for a client that shows
 * only the controls the caller can use (the web app hides edit buttons from a reader). The same
 * grants the service checks on every request (permissions.ts), per entity and method of the
 * model, so the answer never promises what a request would be refused.
 */
import type { Model } from "@bizdata/core";
import type { Context } from "hono";
import type { AuthVariables } from "./authenticate.js";
import { type Action, can, canCall, type Roles } from "./permissions.js";

const ACTIONS: readonly Action[] = ["read", "create", "update", "delete"];

export interface CallerRights {
  readonly tenant: string;
  readonly user: string;
  readonly roles: readonly string[];
  /** per entity, the actions the caller may take on its records */
  readonly entities: Readonly<Record<string, readonly Action[]>>;
  /** the methods the caller may call, as `Entity.Method` */
  readonly methods: readonly string[];
}

export function callerRights(model: Model, roles: Roles) {
  return (c: Context<{ Variables: AuthVariables }>) => {
    const principal = c.get("principal");
    const entities: Record<string, readonly Action[]> = {};
    const methods: string[] = [];
    for (const [name, entity] of model.entities) {
      entities[name] = ACTIONS.filter((action) => can(roles, principal, action, name));
      for (const [method, declaration] of Object.entries(entity.methods)) {
        if (canCall(roles, principal, name, method, declaration.type === "read")) methods.push(`${name}.${method}`);
      }
    }
    const body: CallerRights = {
      tenant: principal.tenantId,
      user: principal.username,
      roles: principal.roles,
      entities,
      methods,
    };
    c.header("Cache-Control", "no-store");
    return c.json(body);
  };
}
