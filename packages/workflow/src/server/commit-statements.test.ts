/**
 * A workflow's commit is set operations (issue "Reads and writes at the speed of the database"):
 * its statements depend on which entities it staged, not on how many records. The services run over
 * a database that records every statement; the same commit of a few and of many staged records
 * must cost the same statements, business logic included (save logic that reads each order's
 * customer, a virtual entity whose `save` creates real orders).
 */
import { sampleFeatures } from "@bizdata/examples";
import { testDatabase } from "@bizdata/test-kit/database";
import { recording } from "@bizdata/test-kit/recording-database";
import { type Client, workflow, workflowHarness } from "@bizdata/test-kit/workflow-harness";
import { beforeAll, describe, expect, it } from "vitest";

const log: string[] = [];
let admin: Client;

beforeAll(async () => {
  const harness = await workflowHarness({ db: recording(await testDatabase(), log) });
  admin = harness.as(await harness.tenant("commit-stmts", sampleFeatures), "admin");
  for (let i = 0; i < 3; i++) await admin.request("POST", "/api/Product", { SKU: `CS-${i}`, Price: 10 + i });
  for (let i = 0; i < 30; i++) await admin.request("POST", "/api/Customer", { Id: `CC-${i}`, CreditLimit: 1_000_000 });
});

/** stages `steps` in a new workflow, then commits: the statements of the commit request and its answer */
async function commitAfter(steps: (i: number) => readonly [path: string, body: unknown], count: number) {
  const wf = await workflow(admin);
  for (let i = 0; i < count; i++) {
    const [path, body] = steps(i);
    expect((await wf.step("POST", path, body)).status).toBe(201);
  }
  log.length = 0;
  const res = await wf.commit();
  return { status: res.status, body: res.body as { message?: string }, statements: [...log] };
}

const order = (tag: string) => (i: number) =>
  [
    "/api/SalesOrder",
    { DocNumber: `${tag}-${i}`, SellToCustomer: `CC-${i}`, Details: [{ Product: `CS-${i % 3}`, Quantity: 1 }] },
  ] as const;

const imported = (tag: string) => (i: number) =>
  ["/api/SalesOrderImport", { DocNumber: `${tag}-${i}`, Customer: `CC-${i}`, Lines: `CS-${i % 3}:2,CS-1:1` }] as const;

describe("statements of a commit", () => {
  it("do not grow with the staged records: orders whose save logic reads their customers", async () => {
    const few = await commitAfter(order("CO-few"), 3);
    const many = await commitAfter(order("CO-many"), 30);
    expect(few.body.message).toBe("Committed 6 changes.");
    expect(many.body.message).toBe("Committed 60 changes.");
    expect(many.statements.length, many.statements.join("\n\n")).toBe(few.statements.length);
    // the customers the credit check reads: one statement for all of them
    expect(many.statements.filter((s) => /FROM "customer"/.test(s))).toHaveLength(1);
  });

  it("do not grow with the staged records of a virtual entity whose save creates real orders", async () => {
    const few = await commitAfter(imported("CI-few"), 3);
    const many = await commitAfter(imported("CI-many"), 30);
    expect(few.body.message).toBe("Committed 3 changes.");
    expect(many.body.message).toBe("Committed 30 changes.");
    expect(many.statements.length, many.statements.join("\n\n")).toBe(few.statements.length);
    const stored = await admin.request("GET", "/api/SalesOrder/$count?$filter=startswith(DocNumber,'CI-many-')");
    expect(stored.text).toBe("30");
  });

  it("touch only the entities the workflow staged something of", async () => {
    const commit = await commitAfter(() => ["/api/Product", { SKU: `CT-${Math.random()}` }], 1);
    expect(commit.body.message).toBe("Committed 1 change.");
    const tables = new Set(commit.statements.flatMap((s) => [...s.matchAll(/"([a-z_]+)__staged"/g)].map((m) => m[1])));
    // the one statement that finds what was staged names every staged table; every other names product's alone
    const others = commit.statements.filter((s) => !s.includes("UNION ALL"));
    expect(new Set(others.flatMap((s) => [...s.matchAll(/"([a-z_]+)__staged"/g)].map((m) => m[1])))).toEqual(
      new Set(["product"]),
    );
    expect(tables.size).toBeGreaterThan(1);
  });
});
