/**
 * Workflow endpoints (spec 4.6, api-conventions: Workflows): create, resume by id, find by
 * staging key, close, commit, and the answer link. Commit and answers are workflow steps
 * (workflow-step.ts runs them under the index protocol).
 */
import { type Database, inTenant, invokeMethod, type Model, ServiceError, saveVirtual } from "@bizdata/core";
import { type QueryLimits, ReadPlanner, resolveEntity } from "@bizdata/odata";
import {
  answerQuestion,
  applyStaged,
  checkStaged,
  closeWorkflow,
  createWorkflow,
  discardStaged,
  findActiveWorkflow,
  findWorkflow,
  sweepExpired,
  type WorkflowPrompts,
} from "@bizdata/workflow";
import { type Context, Hono } from "hono";
import type { AuthVariables } from "../auth/authenticate.js";
import { methodEnvironment } from "./method-call.js";
import { currentWorkflow, inRequestTransaction, requestPrompts } from "./request-transaction.js";
import { tenantInfo } from "./tenant-info.js";
import type { WorkflowSettings } from "./workflow-step.js";

type Env = { Variables: AuthVariables };

const notFound = () => new ServiceError(404, "NotFound", "There is no open workflow with this id for you.");

const envelope = (prompts: WorkflowPrompts, body: Record<string, unknown>) => {
  const value = prompts.envelope();
  return value === undefined ? body : { "@workflow.userprompts": value, ...body };
};

/** the workflow a step belongs to: commit and answers need the workflow headers */
const stepOf = (): string => {
  const workflowId = currentWorkflow();
  if (workflowId === undefined) {
    throw new ServiceError(
      400,
      "WorkflowIndexRequired",
      "Send Workflow-Id and Workflow-Index with this request.",
      "Workflow-Id",
    );
  }
  return workflowId;
};

export function workflowRoutes(
  db: Database,
  model: Model,
  settings: WorkflowSettings & { readonly queryLimits: QueryLimits },
) {
  // deferred method calls read through a planner of their own
  const planner = new ReadPlanner(model, { limits: settings.queryLimits });
  const who = (c: Context<Env>) => c.get("principal");
  return new Hono<Env>()
    .post("/workflow", async (c) => {
      const { tenantId, username } = who(c);
      const stagingKey = c.req.query("stagingKey") ?? null;
      const workflow = await inTenant(db, tenantId, async (tx) => {
        await sweepExpired(tx, model, tenantId);
        return createWorkflow(tx, tenantId, username, stagingKey, settings.ttlSeconds);
      });
      c.header("Workflow-Next-Index", "1");
      return c.json({ message: "Workflow created.", workflowId: workflow.id, nextIndex: workflow.nextIndex });
    })
    .get("/workflow/active", async (c) => {
      const { tenantId, username } = who(c);
      const stagingKey = c.req.query("stagingKey");
      if (!stagingKey)
        throw new ServiceError(400, "MissingParameter", "Give the stagingKey to look for.", "stagingKey");
      const workflow = await inTenant(db, tenantId, (tx) => findActiveWorkflow(tx, tenantId, username, stagingKey));
      if (workflow === undefined)
        throw new ServiceError(404, "NotFound", `You have no active workflow with staging key "${stagingKey}".`);
      c.header("Workflow-Next-Index", String(workflow.nextIndex));
      return c.json({ workflowId: workflow.id, nextIndex: workflow.nextIndex });
    })
    .get("/workflow/:id{[0-9a-fA-F-]{36}}", async (c) => {
      const { tenantId, username } = who(c);
      const workflow = await inTenant(db, tenantId, (tx) => findWorkflow(tx, tenantId, username, c.req.param("id")));
      if (workflow === undefined) throw notFound();
      c.header("Workflow-Next-Index", String(workflow.nextIndex));
      return c.json({ workflowId: workflow.id, nextIndex: workflow.nextIndex });
    })
    .delete("/workflow/:id{[0-9a-fA-F-]{36}}", async (c) => {
      const { tenantId, username } = who(c);
      const id = c.req.param("id");
      await inTenant(db, tenantId, async (tx) => {
        if ((await findWorkflow(tx, tenantId, username, id, { lock: true })) === undefined) throw notFound();
        await discardStaged(tx, model, tenantId, id);
        await closeWorkflow(tx, tenantId, id);
        settings.scopes.forget(id);
      });
      return c.body(null, 204);
    })
    .post("/workflow/commit", async (c) => {
      const workflowId = stepOf();
      const { tenantId } = who(c);
      return inRequestTransaction(db, tenantId, async (staged) => {
        const prompts = requestPrompts(staged, tenantId) as WorkflowPrompts;
        const tenant = await tenantInfo(staged, tenantId);
        // save logic sees the staged state as it will be stored
        await checkStaged({ session: staged, model, tenant, prompts }, workflowId);
        if (prompts.hasPending) {
          return c.json(
            envelope(prompts, { message: "A question must be answered before the workflow can commit." }),
            422,
          );
        }
        const { view: _, ...base } = staged;
        const changed = await applyStaged(base, model, tenantId, workflowId, (def, records) =>
          saveVirtual({ session: base, model, tenant, prompts }, def, records),
        );
        return c.json(envelope(prompts, { message: `Committed ${changed} change${changed === 1 ? "" : "s"}.` }));
      });
    })
    .post("/userprompts/:promptId{[0-9a-fA-F-]{36}}/answer/:choice", async (c) => {
      const workflowId = stepOf();
      const { tenantId } = who(c);
      const answered = await inRequestTransaction(db, tenantId, async (tx) => {
        const result = await answerQuestion(tx, tenantId, workflowId, c.req.param("promptId"), c.req.param("choice"));
        if (result.outcome !== "answered" || result.deferred === null || c.req.param("choice") !== "accept")
          return { result };
        // the method body waited for this answer: run the captured call now, in the workflow
        const { entity: name, ...call } = result.deferred;
        const entity = resolveEntity(model, name);
        const { env, prompts } = await methodEnvironment(tx, model, planner, tenantId, false);
        const outcome = await invokeMethod(env, { ...call, entity }, entity.methods[call.name]!);
        if (outcome.status === "aborted") throw outcome.error;
        return { result, prompts: prompts.envelope() };
      });
      switch (answered.result.outcome) {
        case "answered":
          return c.json({
            ...(answered.prompts && { "@workflow.userprompts": answered.prompts }),
            message: "Answer recorded.",
          });
        case "unknownPrompt":
          throw new ServiceError(404, "NotFound", "This workflow has no such question.");
        case "unknownChoice":
          throw new ServiceError(400, "InvalidChoice", `"${c.req.param("choice")}" is not a choice of this question.`);
        case "alreadyAnswered":
          throw new ServiceError(400, "AlreadyAnswered", "This question has already been answered.");
      }
    });
}
