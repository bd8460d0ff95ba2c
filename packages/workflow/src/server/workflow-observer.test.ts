/**
 * The workflow service tells its observer how each step and each commit ended, whichever way the
 * request came (a route, a `$batch` part, an MCP tool): what a host's metrics count.
 */
import { randomUUID } from "node:crypto";
import { type Database, migrate, ServiceError } from "@bizdata/core";
import { createODataService, type ODataResult, type ODataService } from "@bizdata/odata";
import { containmentModel } from "@bizdata/test-kit/containment-model";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { beforeAll, describe, expect, it } from "vitest";
import { WarmScopes } from "./warm-scopes.js";
import {
  type CommitResult,
  createWorkflowService,
  type StepOutcome,
  type WorkflowCaller,
  type WorkflowService,
  type WorkflowUnit,
} from "./workflow-service.js";
import { workflowTables } from "./workflow-tables.js";

const model = containmentModel("Wo");
const tenantId = uniqueTenant("workflow-observer");
const ann: WorkflowCaller = { tenantId, owner: "ann", may: () => true };
const bob: WorkflowCaller = { tenantId, owner: "bob", may: (access) => access.kind === "read" };
let db: Database;
let odata: ODataService;
let workflows: WorkflowService;
const told: { steps: StepOutcome[]; commits: CommitResult[] } = { steps: [], commits: [] };

const json = (result: ODataResult) => JSON.parse(result.body ?? "null");
const request = (method: string, path: string, body: unknown, unit?: WorkflowUnit) =>
  odata.handle(
    {
      method,
      path,
      search: new URLSearchParams(),
      tenantId,
      ...(body !== undefined && { body: async () => body }),
    },
    unit,
  );

/** what the observer was told while `act` ran (its error swallowed: a failed step is a case here) */
async function tells(act: () => Promise<unknown>) {
  told.steps.length = 0;
  told.commits.length = 0;
  await act().catch((err: unknown) => {
    if (!(err instanceof ServiceError)) throw err;
  });
  return { steps: [...told.steps], commits: [...told.commits] };
}

const open = async (caller = ann) => json(await workflows.create(caller, null)).workflowId as string;

beforeAll(async () => {
  db = await testDatabase();
  await migrate(db, model, workflowTables);
  odata = createODataService({ db, model, basePath: "/api" });
  workflows = createWorkflowService({
    db,
    model,
    planner: odata.planner,
    basePath: "/api",
    ttlSeconds: 600,
    scopes: new WarmScopes({ enabled: false }),
    observe: { step: (o) => told.steps.push(o), commit: (o) => told.commits.push(o) },
  });
});

describe("a workflow service's observer", () => {
  it("hears a step advance, conflict on its index, fail on its answer, and fail without an index or a workflow", async () => {
    const workflowId = await open();
    const create = (unit: WorkflowUnit) => request("POST", "WoProduct", { SKU: `S-${randomUUID()}` }, unit);
    expect(await tells(() => workflows.step(ann, { workflowId, index: "1" }, create))).toEqual({
      steps: ["advanced"],
      commits: [],
    });
    expect((await tells(() => workflows.step(ann, { workflowId, index: "1" }, create))).steps).toEqual([
      "indexConflict",
    ]);
    // a 400 answer rolls the step back: nothing advanced
    const bad = (unit: WorkflowUnit) => request("POST", "WoProduct", { Nope: 1 }, unit);
    expect((await tells(() => workflows.step(ann, { workflowId, index: "2" }, bad))).steps).toEqual(["failed"]);
    expect((await tells(() => workflows.step(ann, { workflowId, index: undefined }, create))).steps).toEqual([
      "failed",
    ]);
    expect((await tells(() => workflows.step(ann, { workflowId: randomUUID(), index: "1" }, create))).steps).toEqual([
      "failed",
    ]);
    expect(json(await workflows.resume(ann, workflowId)).nextIndex).toBe(2);
  });

  it("hears a commit commit, conflict with the main data, and fail without its headers or its rights", async () => {
    const committed = await open();
    await workflows.step(ann, { workflowId: committed, index: "1" }, (unit) =>
      request("POST", "WoProduct", { SKU: `C-${randomUUID()}` }, unit),
    );
    expect(await tells(() => workflows.commit(ann, { workflowId: committed, index: "2" }))).toEqual({
      steps: ["advanced"],
      commits: ["committed"],
    });

    const product = json(await request("POST", "WoProduct", { SKU: `M-${randomUUID()}` })).Guid as string;
    const conflicting = await open();
    await workflows.step(ann, { workflowId: conflicting, index: "1" }, (unit) =>
      request("PATCH", `WoProduct(${product})`, { SKU: `W-${randomUUID()}` }, unit),
    );
    await request("PATCH", `WoProduct(${product})`, { SKU: `N-${randomUUID()}` });
    expect(await tells(() => workflows.commit(ann, { workflowId: conflicting, index: "2" }))).toEqual({
      steps: ["failed"],
      commits: ["conflict"],
    });

    expect(await tells(() => workflows.commit(ann, undefined))).toEqual({ steps: [], commits: ["failed"] });

    const refused = await open(bob);
    await workflows.step({ ...bob, may: () => true }, { workflowId: refused, index: "1" }, (unit) =>
      request("POST", "WoProduct", { SKU: `B-${randomUUID()}` }, unit),
    );
    expect(await tells(() => workflows.commit(bob, { workflowId: refused, index: "2" }))).toEqual({
      steps: ["failed"],
      commits: ["failed"],
    });
  });
});
