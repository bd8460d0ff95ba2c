/**
 * An owned item by its key under its owner (`SalesOrder(…)/Details(…)`) as a workflow's step, at
 * the service level on the sample domain: it stages as `SalesOrderDetail(…)` does (the same
 * ETags, either address seeing the other's changes, saved at commit), reaches a line the workflow
 * added, and refuses another order's line with a 404 that keeps the index. A line POSTed to its
 * order's collection is staged with what the order's logic made of it, and saved at commit.
 */

import { dataOf } from "@bizdata/test-kit/host-app";
import { type Answer, type Client, workflow, workflowHarness } from "@bizdata/test-kit/workflow-harness";
import { beforeAll, describe, expect, it } from "vitest";

let admin: Client;

/** a new order with lines of the given quantities: its Guid and its lines' */
async function order(doc: string, quantities: readonly number[]) {
  const res = await admin.request("POST", "/api/SalesOrder?$expand=Details($select=Guid;$orderby=LineNumber)", {
    DocNumber: doc,
    SellToCustomer: "OK-C",
    Details: quantities.map((Quantity, i) => ({ LineNumber: i + 1, Product: "OK-P", Quantity, UnitPrice: 2 })),
  });
  expect(res.status).toBe(201);
  return { guid: res.body.Guid as string, lines: res.body.Details.map((d: { Guid: string }) => d.Guid) as string[] };
}

const quantityOf = async (line: string) =>
  (await admin.request("GET", `/api/SalesOrderDetail(${line})?$select=Quantity`)).body.Quantity;

const refused = (res: Answer, status: number, message: string) => {
  expect(res.status).toBe(status);
  expect(res.body.error.message).toBe(message);
};

beforeAll(async () => {
  const harness = await workflowHarness();
  admin = harness.as(await harness.tenant("owned-key"), "admin");
  expect((await admin.request("POST", "/api/Customer", { Id: "OK-C", CreditLimit: 100000 })).status).toBe(201);
  expect((await admin.request("POST", "/api/Product", { SKU: "OK-P", Cost: 1, Price: 2 })).status).toBe(201);
});

describe("an owned item under its owner in a workflow", () => {
  it("stages as SalesOrderDetail(…) does: the same ETags, either address seeing the other's changes, saved at commit", async () => {
    const { guid, lines } = await order("OK-12", [1, 1]);
    const [first, second] = lines as [string, string];
    const under = (line: string) => `/api/SalesOrder(${guid})/Details(${line})`;
    const wf = await workflow(admin);
    const patched = await wf.step("PATCH", `${under(first)}?$select=Quantity`, { Quantity: 4 });
    expect([patched.status, patched.headers.ETag]).toEqual([200, 'W/"1+1"']);
    expect(dataOf(patched.body)).toEqual({ Guid: first, Quantity: 4 });
    // the direct address sees the staged change, and its If-Match takes the ETag the owned one showed
    const direct = await wf.step(
      "PATCH",
      `/api/SalesOrderDetail(${first})?$select=Quantity`,
      { Quantity: 5 },
      wf.index,
      { "If-Match": 'W/"1+1"' },
    );
    expect([direct.status, direct.headers.ETag]).toEqual([200, 'W/"1+2"']);
    const stale = await wf.step("PATCH", under(first), { Quantity: 6 }, wf.index, { "If-Match": 'W/"1+1"' });
    expect(stale.status).toBe(412);
    const read = await wf.step("GET", `${under(first)}?$select=Quantity`);
    expect([read.headers.ETag, dataOf(read.body)]).toEqual(['W/"1+2"', { Guid: first, Quantity: 5 }]);
    expect((await wf.step("DELETE", under(second))).status).toBe(204);
    refused(await wf.step("GET", under(second)), 404, `SalesOrder(${guid})/Details has no item ${second}.`);
    // the main data has not moved
    expect(await quantityOf(first)).toBe(1);
    expect((await admin.request("GET", `/api/SalesOrderDetail(${second})`)).status).toBe(200);
    const commit = await wf.commit();
    expect(commit.status, JSON.stringify(commit.body)).toBe(200);
    expect(await quantityOf(first)).toBe(5);
    expect((await admin.request("GET", `/api/SalesOrderDetail(${second})`)).status).toBe(404);
  });

  it("reaches a line the workflow added to its order, and refuses another order's line, keeping the index", async () => {
    const a = await order("OK-13", [1]);
    const b = await order("OK-14", [1]);
    const wf = await workflow(admin);
    const added = await wf.step(
      "PATCH",
      `/api/SalesOrder(${a.guid})?$expand=Details($select=Guid;$orderby=LineNumber)`,
      {
        Details: [
          { Guid: a.lines[0], Quantity: 1 },
          { LineNumber: 2, Product: "OK-P", Quantity: 8 },
        ],
      },
    );
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const staged = added.body.Details[1].Guid as string;
    const read = await wf.step("GET", `/api/SalesOrder(${a.guid})/Details(${staged})?$select=Quantity`);
    expect(dataOf(read.body)).toEqual({ Guid: staged, Quantity: 8 });
    const at = wf.index;
    const wrong = await wf.step("PATCH", `/api/SalesOrder(${b.guid})/Details(${staged})`, { Quantity: 2 });
    refused(wrong, 404, `SalesOrder(${b.guid})/Details has no item ${staged}.`);
    expect(wf.index).toBe(at);
    // outside the workflow the line does not exist yet
    refused(
      await admin.request("GET", `/api/SalesOrder(${a.guid})/Details(${staged})`),
      404,
      `SalesOrder(${a.guid})/Details has no item ${staged}.`,
    );
    expect((await admin.close(wf.id)).status).toBe(204);
  });

  it("stages a line POSTed to its order's collection with the order's new total, saved at commit", async () => {
    const { guid } = await order("OK-15", [1]);
    const total = async () =>
      (await admin.request("GET", `/api/SalesOrder(${guid})?$select=TotalPrice`)).body.TotalPrice;
    expect(await total()).toBe(2);
    const wf = await workflow(admin);
    const added = await wf.step("POST", `/api/SalesOrder(${guid})/Details?$select=Quantity`, {
      LineNumber: 2,
      Product: "OK-P",
      Quantity: 3,
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.headers.Location).toBe(`/api/SalesOrderDetail(${added.body.Guid})`);
    const staged = await wf.step("GET", `/api/SalesOrder(${guid})?$select=TotalPrice&$expand=Details($select=Guid)`);
    expect(staged.body.TotalPrice).toBe(8);
    expect(staged.body.Details).toHaveLength(2);
    // the main data has not moved
    expect(await total()).toBe(2);
    expect((await admin.request("GET", `/api/SalesOrderDetail(${added.body.Guid})`)).status).toBe(404);
    expect((await wf.commit()).status).toBe(200);
    expect(await total()).toBe(8);
    expect((await admin.request("GET", `/api/SalesOrderDetail(${added.body.Guid})`)).status).toBe(200);
  });
});
