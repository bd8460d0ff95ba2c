/**
 * The change log as the host's write paths fill it (core's change-table.ts): every path appends
 * exactly its changes, with the caller and the request id, in the transaction of the write — a
 * write that fails, a changeset that rolls back and a workflow that stages but does not commit
 * append nothing. And who may read a record's history.
 */

import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChangeRow, inTenant, readChanges } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import { changesSettled } from "@bizdata/test-kit/change-log";
import { testDatabase } from "@bizdata/test-kit/database";
import { type Caller, signedInTenant } from "@bizdata/test-kit/host-app";
import { workflow } from "@bizdata/test-kit/workflow-steps";
import { describe, expect, it } from "vitest";
import { importFile } from "../import/import-file.js";

const ENTITIES = [...sampleModel.entities.keys()];
const json = async (res: Response) => (await res.json()) as any;

/** the tenant's change log from its start, in log order */
async function changesOf(tenantId: string): Promise<ChangeRow[]> {
  const db = await testDatabase();
  await changesSettled(db);
  return (
    await inTenant(db, tenantId, (tx) => readChanges(tx, tenantId, { entities: ENTITIES, from: "0", limit: 10_000 }))
  ).rows;
}

/** what each row of `rows` says of its record */
const said = (rows: readonly ChangeRow[]) => rows.map((r) => `${r.kind} ${r.entity}`);

/** the rows appended while `act` runs */
async function appended(who: Caller, act: () => Promise<unknown>): Promise<ChangeRow[]> {
  const before = (await changesOf(who.tenantId)).length;
  await act();
  return (await changesOf(who.tenantId)).slice(before);
}

async function created(who: Caller, path: string, body: unknown): Promise<string> {
  const res = await who.request("POST", path, body);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json(res)).Guid;
}

async function tenantWithStock() {
  const { admin, reader } = await signedInTenant("cl");
  await created(admin, "/api/Product", { SKU: "P1", Price: 10 });
  await created(admin, "/api/Customer", { Id: "C1", CreditLimit: 1_000_000 });
  return { admin, reader };
}

describe("the change log of the host's write paths", () => {
  it("has each create, update and delete with its caller and request id, deep items with their owner", async () => {
    const { admin } = await tenantWithStock();
    const rows = await appended(admin, async () => {
      const res = await admin.request(
        "POST",
        "/api/SalesOrder",
        { DocNumber: "SO-1", SellToCustomer: "C1", Details: [{ Product: "P1", Quantity: 2 }] },
        { "X-Request-Id": "create-1" },
      );
      expect(res.status).toBe(201);
    });
    expect(said(rows)).toEqual(["create SalesOrder", "create SalesOrderDetail"]);
    const order = rows[0]!.key;
    expect(rows[1]!.owner).toBe(order);
    expect(rows.map((r) => [r.actor, r.requestId])).toEqual([
      ["admin", "create-1"],
      ["admin", "create-1"],
    ]);
    const update = await appended(admin, () =>
      admin.request("PATCH", `/api/SalesOrder(${order})`, { Description: "x" }),
    );
    expect(update.map((r) => [r.kind, r.properties])).toEqual([["update", ["Description"]]]);
    // a request id is made for a request without one, and logged
    expect(update[0]!.requestId).toMatch(/^[0-9a-f-]{36}$/);
    const removed = await appended(admin, () => admin.request("DELETE", `/api/SalesOrder(${order})`));
    expect(said(removed)).toEqual(["delete SalesOrder", "delete SalesOrderDetail"]);
  });

  it("has what a method changes, and nothing of a method that aborts", async () => {
    const { admin } = await tenantWithStock();
    const journal = await created(admin, "/api/Journal", { DocNumber: "J1", Amount: 5 });
    const empty = await created(admin, "/api/Journal", { DocNumber: "J2" });
    const posted = await appended(admin, async () => {
      expect((await admin.request("POST", `/api/Journal(${journal})/Post`)).status).toBe(204);
    });
    expect(posted.map((r) => [r.kind, r.entity, r.key, r.properties])).toEqual([
      ["update", "Journal", journal, ["IsPosted"]],
    ]);
    const aborted = await appended(admin, async () => {
      expect((await admin.request("POST", `/api/Journal(${empty})/Post`)).status).toBe(400);
    });
    expect(aborted).toEqual([]);
  });

  it("has a changeset's writes in one transaction, and nothing of one that fails", async () => {
    const { admin } = await tenantWithStock();
    const batch = (requests: unknown[]) =>
      admin.request("POST", "/api/$batch", { requests }, { "X-Request-Id": "b-1" });
    const part = (id: string, body: unknown) => ({
      id,
      atomicityGroup: "g",
      method: "POST",
      url: "Product",
      headers: { "content-type": "application/json" },
      body,
    });
    const rows = await appended(admin, async () => {
      const res = await batch([part("1", { SKU: "B1" }), part("2", { SKU: "B2" })]);
      expect((await json(res)).responses.map((r: { status: number }) => r.status)).toEqual([201, 201]);
    });
    expect(said(rows)).toEqual(["create Product", "create Product"]);
    expect(new Set(rows.map((r) => r.xid)).size).toBe(1);
    expect(rows.map((r) => r.requestId)).toEqual(["b-1", "b-1"]);
    // the second part's duplicate SKU fails the changeset: the first's create is not logged either
    const failed = await appended(admin, () => batch([part("1", { SKU: "B3" }), part("2", { SKU: "B1" })]));
    expect(failed).toEqual([]);
  });

  it("has a workflow's changes at its commit only, as its owner's, and nothing of one closed", async () => {
    const { admin } = await tenantWithStock();
    const product = await created(admin, "/api/Product", { SKU: "WF", Price: 1 });
    const wf = await workflow(admin);
    const staged = await appended(admin, async () => {
      expect((await wf.step("PATCH", `/api/Product(${product})`, { Price: 2 })).status).toBe(200);
      expect((await wf.step("POST", "/api/Product", { SKU: "WF-NEW" })).status).toBe(201);
      expect((await wf.step("DELETE", `/api/Product(${product})`)).status).toBe(204);
      expect((await wf.step("POST", "/api/Product", { SKU: "WF-CHANGED", Price: 1 })).status).toBe(201);
    });
    expect(staged).toEqual([]);
    const committed = await appended(admin, async () => {
      expect((await wf.step("POST", "/api/workflow/commit")).status).toBe(200);
    });
    expect(said(committed).sort()).toEqual(["create Product", "create Product", "delete Product"]);
    expect(new Set(committed.map((r) => `${r.xid} ${r.actor}`))).toEqual(new Set([`${committed[0]!.xid} admin`]));
    // a change staged after a commit: logged with the next commit, with the properties it changed
    const other = committed.find((r) => r.kind === "create")!.key;
    const again = await appended(admin, async () => {
      expect((await wf.step("PATCH", `/api/Product(${other})`, { SalesDescription: "d" })).status).toBe(200);
      expect((await wf.step("POST", "/api/workflow/commit")).status).toBe(200);
    });
    expect(again.map((r) => [r.kind, r.key, r.properties])).toEqual([
      ["update", other, expect.arrayContaining(["SalesDescription"])],
    ]);
    const closed = await workflow(admin);
    const discarded = await appended(admin, async () => {
      expect((await closed.step("PATCH", `/api/Product(${other})`, { Price: 9 })).status).toBe(200);
      expect((await admin.request("DELETE", `/api/workflow/${closed.id}`)).status).toBe(204);
    });
    expect(discarded).toEqual([]);
  });

  it("has an import's records, as the import's", async () => {
    const { admin } = await tenantWithStock();
    const file = join(tmpdir(), `change-log-${admin.tenantId}.jsonl`);
    await writeFile(file, `${JSON.stringify({ SKU: "I1" })}\n${JSON.stringify({ SKU: "I2" })}\n{"SKU": 5}\n`);
    const rows = await appended(admin, async () =>
      importFile({
        db: await testDatabase(),
        model: sampleModel,
        tenantId: admin.tenantId,
        entity: "Product",
        file,
        stderr: Object.assign(new (await import("node:stream")).PassThrough(), { isTTY: false }),
      }),
    );
    expect(said(rows)).toEqual(["create Product", "create Product"]);
    expect(rows.map((r) => r.actor)).toEqual(["import", "import"]);
  });

  it("lets who may read a record's history read it: the admin, not the reader", async () => {
    const { admin, reader } = await tenantWithStock();
    const product = await created(admin, "/api/Product", { SKU: "H" });
    await admin.request("PATCH", `/api/Product(${product})`, { Price: 3 }, { "X-Request-Id": "price-1" });
    const res = await admin.request("GET", `/api/Product(${product})/$history`);
    expect(res.status).toBe(200);
    expect((await json(res)).value[0]).toMatchObject({
      kind: "update",
      actor: "admin",
      requestId: "price-1",
      properties: ["Price"],
    });
    const refused = await reader.request("GET", `/api/Product(${product})/$history`);
    expect(refused.status).toBe(403);
    // a delta link is a read: the reader may follow one
    const tracked = await reader.request("GET", "/api/Product?$select=SKU", undefined, {
      Prefer: "odata.track-changes",
    });
    expect(tracked.status).toBe(200);
    expect((await json(tracked))["@odata.deltaLink"]).toEqual(expect.any(String));
  });
});
