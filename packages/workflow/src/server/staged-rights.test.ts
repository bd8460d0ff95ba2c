/**
 * Commit and close ask the caller's rights as they are at that step (issue 35), through the
 * workflow service alone with a rights callback of the test's own: a caller may read and resume
 * its workflow but not commit or close it without the right to every write staged in it (403,
 * nothing stored, the workflow as it was); an owned item's writes are also allowed by the right to
 * create or update its owner.
 */
import { type Database, migrate, ServiceError, type UnitOfWork } from "@bizdata/core";
import { type Access, createODataService, type ODataResult, type ODataService } from "@bizdata/odata";
import { containmentModel } from "@bizdata/test-kit/containment-model";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { beforeAll, describe, expect, it } from "vitest";
import type { Rights } from "./staged-rights.js";
import { WarmScopes } from "./warm-scopes.js";
import {
  createWorkflowService,
  type WorkflowCaller,
  type WorkflowService,
  type WorkflowUnit,
} from "./workflow-service.js";
import { workflowTables } from "./workflow-tables.js";

const model = containmentModel("Sr");
const tenantId = uniqueTenant("staged-rights");
let db: Database;
let odata: ODataService;
let workflows: WorkflowService;
let product: string;

const everything: Rights = () => true;
/** reads, and the writes named as "create SrOrder" */
const only =
  (...writes: string[]): Rights =>
  (access: Access) =>
    access.kind === "read" || writes.includes(`${access.kind} ${access.entity}`);
const readOnly = only();

const as = (may: Rights): WorkflowCaller => ({ tenantId, owner: "ann", may });
const json = (result: ODataResult) => JSON.parse(result.body ?? "null");

/** a service request with the test's body, as a host passes it (permissions asked and granted) */
const request = (method: string, path: string, body?: unknown, unit?: UnitOfWork) =>
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

/** the workflow's next step as `Workflow-Id` and `Workflow-Index` give it */
const next = async (workflowId: string, may: Rights) => ({
  workflowId,
  index: String(json(await workflows.resume(as(may), workflowId)).nextIndex),
});

/** what a step answers, or the error it threw */
async function answered(result: Promise<ODataResult>) {
  try {
    const done = await result;
    return { status: done.status, body: json(done) };
  } catch (err) {
    if (err instanceof ServiceError) return { status: err.status, code: err.code, message: err.message };
    throw err;
  }
}

/** `run` as the workflow's next step, for the caller `may` */
const step = async (workflowId: string, may: Rights, run: (unit: WorkflowUnit) => Promise<ODataResult>) =>
  answered(workflows.step(as(may), await next(workflowId, may), run).then(({ result }) => result));

const commit = async (workflowId: string, may: Rights) =>
  answered(workflows.commit(as(may), await next(workflowId, may)));

async function close(workflowId: string, may: Rights) {
  try {
    return (await workflows.close(as(may), workflowId)).status;
  } catch (err) {
    if (err instanceof ServiceError) return err.status;
    throw err;
  }
}

const count = async (entity: string, filter: string) =>
  (
    await odata.handle({
      method: "GET",
      path: `${entity}/$count`,
      search: new URLSearchParams({ $filter: filter }),
      tenantId,
    })
  ).body;

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
  });
  product = json(await request("POST", "SrProduct", { SKU: "P-1" })).Guid;
});

/** a new workflow of ann's with an order (a line with a note) and a changed product staged */
async function staged(number: string) {
  const { workflowId } = json(await workflows.create(as(everything), null));
  const order = await step(workflowId, everything, (unit) =>
    request("POST", "SrOrder", { Number: number, Lines: [{ Quantity: 2, Notes: [{ Text: "fragile" }] }] }, unit),
  );
  expect(order.status).toBe(201);
  expect(
    (
      await step(workflowId, everything, (unit) =>
        request("PATCH", `SrProduct(${product})`, { SKU: `P-${number}` }, unit),
      )
    ).status,
  ).toBe(200);
  return workflowId as string;
}

describe("rights at commit and close", () => {
  it.each([
    ["a read-only caller", "O-1", readOnly, "creating SrNote"],
    [
      "one who may write orders but not products",
      "O-2",
      only("create SrOrder", "update SrOrder"),
      "updating SrProduct",
    ],
    [
      "one who may write lines, notes and products but not create orders",
      "O-3",
      only("create SrLine", "create SrNote", "update SrProduct"),
      "creating SrOrder",
    ],
  ])(
    "refuses %s: 403 naming the write, nothing stored, the workflow open and intact",
    async (_, number, may, denied) => {
      const workflowId = await staged(number);
      const refused = await commit(workflowId, may);
      expect(refused).toEqual({
        status: 403,
        code: "Forbidden",
        message: `Your role does not allow ${denied}, which this workflow staged; committing it needs that right.`,
      });
      expect(await close(workflowId, may)).toBe(403);
      // nothing reached the main data, and the caller still reads the staged state
      expect(await count("SrProduct", `SKU eq 'P-1'`)).toBe("1");
      const inside = await step(workflowId, may, (unit) =>
        odata.handle(
          { method: "GET", path: `SrProduct(${product})`, search: new URLSearchParams("$select=SKU"), tenantId },
          unit,
        ),
      );
      expect(inside).toMatchObject({ status: 200, body: { SKU: expect.stringMatching(/^P-O-/) } });
      // with every right the same staged state commits, then the workflow closes
      expect(await commit(workflowId, everything)).toMatchObject({
        status: 200,
        body: { message: "Committed 4 changes." },
      });
      expect(await count("SrNote", `Text eq 'fragile'`)).not.toBe("0");
      expect(await close(workflowId, everything)).toBe(204);
      // the product back where it was, for the next case
      expect((await request("PATCH", `SrProduct(${product})`, { SKU: "P-1" })).status).toBe(200);
    },
  );

  it("lets the right to create an order commit its new lines and notes, as a deep insert does", async () => {
    const { workflowId } = json(await workflows.create(as(everything), null));
    const may = only("create SrOrder");
    const order = await step(workflowId, may, (unit) =>
      request("POST", "SrOrder", { Number: "DEEP-1", Lines: [{ Quantity: 1, Notes: [{ Text: "deep" }] }] }, unit),
    );
    expect(order.status).toBe(201);
    expect(await commit(workflowId, may)).toMatchObject({ status: 200, body: { message: "Committed 3 changes." } });
    expect(await count("SrNote", `Text eq 'deep'`)).toBe("1");
  });

  it("lets a caller without write rights close a workflow that staged nothing", async () => {
    const { workflowId } = json(await workflows.create(as(readOnly), null));
    expect(await commit(workflowId, readOnly)).toMatchObject({
      status: 200,
      body: { message: "Committed 0 changes." },
    });
    expect(await close(workflowId, readOnly)).toBe(204);
  });
});
