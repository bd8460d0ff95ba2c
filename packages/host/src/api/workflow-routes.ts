/**
 * Workflow endpoints (spec 4.6, api-conventions: Workflows): create, resume by id, find by
 * staging key, close, commit and the answer link, and the index protocol around every entity
 * request that carries `Workflow-Id` (spec 7). The runtime is @bizdata/workflow's service; this
 * file only adapts Hono's requests and responses to it.
 */
import type { UnitOfWork } from "@bizdata/core";
import type { StepHeaders, WorkflowCaller, WorkflowService } from "@bizdata/workflow";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { AuthVariables } from "../auth/authenticate.js";
import { allows, type Roles } from "../auth/permissions.js";
import { requestDatabase } from "../observability/request-context.js";
import { authorOf, send } from "./entity-routes.js";

/** the unit of work a workflow step hands the entity routes (workflowStep) */
export type StepVariables = { unit?: UnitOfWork };

type Env = { Variables: AuthVariables };

/** a Guid as a route parameter's pattern */
const GUID = "[0-9a-fA-F-]{36}";

/** the request's caller, with what its token and its roles as this request read them allow */
export const workflowCallerOf = (roles: Roles, c: Context<Env>): WorkflowCaller => {
  const principal = c.get("principal");
  const { tenantId, username } = principal;
  return {
    tenantId,
    owner: username,
    may: (access) => allows(roles, principal, access),
    ...requestDatabase(c),
    author: authorOf(c),
  };
};

/** `Workflow-Id` and `Workflow-Index` as a request sent them, if it names a workflow */
export const stepHeadersOf = (get: (name: string) => string | null | undefined): StepHeaders | undefined => {
  const workflowId = get("workflow-id");
  return workflowId === null || workflowId === undefined
    ? undefined
    : { workflowId, index: get("workflow-index") ?? undefined };
};

/**
 * Makes an entity request with `Workflow-Id` one step of that workflow: the routes behind it serve
 * the request in the step's unit of work (`c.var.unit`), and the answer carries the index to send
 * next. Mounted on the entity routes only: the workflow endpoints run their own steps (commit,
 * the answer link) or none (create, resume, find, close).
 */
export function workflowStep(
  service: WorkflowService,
  roles: Roles,
): MiddlewareHandler<{ Variables: AuthVariables & StepVariables }> {
  return async (c, next) => {
    const headers = stepHeadersOf((name) => c.req.header(name));
    if (headers === undefined) return next();
    const { nextIndex } = await service.step(workflowCallerOf(roles, c), headers, async (unit) => {
      c.set("unit", unit);
      await next();
      return { status: c.res.status };
    });
    c.header("Workflow-Next-Index", String(nextIndex));
  };
}

export function workflowRoutes(service: WorkflowService, roles: Roles) {
  const caller = (c: Context<Env>) => workflowCallerOf(roles, c);
  const step = (c: Context<Env>) => stepHeadersOf((name) => c.req.header(name));
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
    .post("/workflow/commit", async (c) => send(c, await service.commit(caller(c), step(c))))
    .post(`/userprompts/:promptId{${GUID}}/answer/:choice`, async (c) =>
      send(c, await service.answer(caller(c), step(c), c.req.param("promptId"), c.req.param("choice"))),
    );
}
