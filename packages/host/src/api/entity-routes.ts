/**
 * The OData service's routes (spec 4.2, 4.8): every entity read, write and method call goes to
 * @bizdata/odata's service with the caller's tenant and permissions; this file only adapts Hono's
 * request and response to the service's plain data.
 */

import type { ChangeAuthor, UnitOfWork } from "@bizdata/core";
import {
  type Access,
  type BodyLimits,
  type ODataRequest,
  type ODataResult,
  type ODataService,
  odataRequestOf,
} from "@bizdata/odata";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { AuthVariables } from "../auth/authenticate.js";
import { authorize, type Roles } from "../auth/permissions.js";
import { requestDatabase, requestOf } from "../observability/request-context.js";

type Env = { Variables: AuthVariables & { unit?: UnitOfWork } };

export interface EntityRouteSettings {
  readonly bodyLimits: BodyLimits;
  readonly roles: Roles;
  /** runs ahead of every entity request: one that is a workflow step gets its unit of work (`c.var.unit`) */
  readonly step?: MiddlewareHandler<Env>;
}

/**
 * A service result as Hono's response. What the service answers is a tenant's data, for this caller
 * (RFC 9111 §5.2.2.7 `private`): no shared cache may keep it, and no cache at all unless an ETag
 * lets a client revalidate it (`no-cache`); a result that says how it may be cached keeps its word.
 */
export const send = (c: Context, result: ODataResult) => {
  const headers =
    result.headers["Cache-Control"] === undefined
      ? {
          ...result.headers,
          "Cache-Control": result.headers.ETag === undefined ? "private, no-store" : "private, no-cache",
        }
      : result.headers;
  return result.body === undefined
    ? c.body(null, result.status as 204, headers)
    : c.body(result.body, result.status as 200, headers);
};

/**
 * The service's answer to `request` made by the caller of `c`, with their permissions and on the
 * request's database, in `unit` when it has one: what a `$batch` part addressed to the service
 * answers, and an MCP tool's call.
 */
export const callService = (
  service: ODataService,
  roles: Roles,
  c: Context<{ Variables: AuthVariables }>,
  request: ODataRequest,
  unit?: UnitOfWork,
) => service.handle({ ...request, ...callerOf(roles, c) }, unit);

/** who makes the changes of `c`'s request, as their change log rows say: the caller and the request id */
export const authorOf = (c: Context<{ Variables: AuthVariables }>): ChangeAuthor => {
  const requestId = requestOf(c)?.id;
  return { actor: c.get("principal").username, ...(requestId !== undefined && { requestId }) };
};

/** the caller's permissions, the request's database and who makes its changes, as a service request carries them */
const callerOf = (roles: Roles, c: Context<{ Variables: AuthVariables }>) => {
  const principal = c.get("principal");
  return {
    authorize: (access: Access) => authorize(roles, principal, access),
    ...requestDatabase(c),
    author: authorOf(c),
  };
};

export function entityRoutes(service: ODataService, settings: EntityRouteSettings) {
  const handle = async (c: Context<Env>) => {
    // made with the caller in it: not copied again to add them (callService)
    const request = odataRequestOf(c.req.raw, {
      basePath: service.basePath,
      tenantId: c.get("principal").tenantId,
      bodyLimits: settings.bodyLimits,
      ...callerOf(settings.roles, c),
    });
    return send(c, await service.handle(request, c.get("unit")));
  };
  const routes = new Hono<Env>();
  if (settings.step) routes.use("/*", settings.step);
  return routes.get("/*", handle).post("/*", handle).patch("/*", handle).delete("/*", handle);
}
