/**
 * Workflow endpoints (spec 4.6, api-conventions: Workflows): create, resume by id, find by
 * staging key, close, commit and the answer link, and the index protocol around every request
 * that carries `Workflow-Id` (spec 7). The runtime is @bizdata/workflow's service; this file only
 * adapts Hono's requests and responses to it.
 */
import type { WorkflowCaller, WorkflowService } from "@bizdata/workflow";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { AuthVariables } from "../auth/authenticate.js";
import { allows, type Roles } from "../auth/permissions.js";
import { requestDatabase } from "../observability/request-context.js";
import { send } from "./entity-routes.js";

type Env = { Variables: AuthVariables };

/** a Guid as a route parameter's pattern */
const GUID = "[0-9a-fA-F-]{36}";

/** the request's caller, with what its token and its roles as this request read them allow */
const callerOf = (roles: Roles, c: Context<Env>): WorkflowCaller => {
  const principal = c.get("principal");
  const { tenantId, username } = principal;
  return { tenantId, owner: username, may: (access) => allows(roles, principal, access), ...requestDatabase(c) };
};

/**
 * Every request with `Workflow-Id` is one step of that workflow, except the endpoints that manage
 * workflows (create, resume, find, close: spec 4.6 lists them without the headers), which a client
 * that sends the headers on every request may reach with them too. Taken as a step, closing the
 * workflow would wait for the lock its own step holds, and resuming would answer the index before
 * the step moved it on.
 */
export function workflowStep(service: WorkflowService, basePath: string, roles: Roles): MiddlewareHandler<Env> {
  const prefix = `${basePath}/workflow`;
  const management = (path: string) =>
    path.startsWith(prefix) && /^(\/active|\/[0-9a-fA-F-]{36})?$/.test(path.slice(prefix.length));
  return async (c, next) => {
    const workflowId = c.req.header("workflow-id");
    if (workflowId === undefined || management(c.req.path)) return next();
    const { nextIndex } = await service.step(
      callerOf(roles, c),
      { workflowId, index: c.req.header("workflow-index") },
      c.req.path.endsWith("/workflow/commit"),
      async () => {
        await next();
        return { status: c.res.status };
      },
    );
    c.header("Workflow-Next-Index", String(nextIndex));
  };
}

export function workflowRoutes(service: WorkflowService, roles: Roles) {
  const caller = (c: Context<Env>) => callerOf(roles, c);
  return new Hono<Env>()
    .post("/workflow", async (c) => send(c, await service.create(caller(c), c.req.query("stagingKey") ?? null)))
    .get(`/workflow/:id{active|${GUID}}`, async (c) => {
      // finding by staging key and resuming by id, in one route: a fixed path beside a parameter
      // would leave every request of the app to Hono's slower router
      const id = c.req.param("id");
      const found =
        id === "active" ? service.findActive(caller(c), c.req.query("stagingKey")) : service.resume(caller(c), id);
      return send(c, await found);
    })
    .delete(`/workflow/:id{${GUID}}`, async (c) => send(c, await service.close(caller(c), c.req.param("id"))))
    .post("/workflow/commit", async (c) => send(c, await service.commit(caller(c))))
    .post(`/userprompts/:promptId{${GUID}}/answer/:choice`, async (c) =>
      send(c, await service.answer(caller(c), c.req.param("promptId"), c.req.param("choice"))),
    );
}
