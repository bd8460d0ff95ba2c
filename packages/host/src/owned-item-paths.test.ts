/**
 * What the host adds to an owned item under its owner (`SalesOrder(…)/Details(…)`; the service's
 * answers to it are tested in packages/odata): a reader's role, as at the item's own address, and
 * staging in a workflow, where either address sees the other's changes.
 */

import { type Caller, dataOf, signedInTenant } from "@bizdata/test-kit/host-app";
import { workflow } from "@bizdata/test-kit/workflow-steps";
import { beforeAll, describe, expect, it } from "vitest";

const json = async (res: Response) => (await res.json()) as any;
let admin: Caller;
let reader: Caller;

/** a new order with lines of the given quantities: its Guid and its lines' */
async function order(doc: string, quantities: readonly number[]) {
  const res = await admin.request("POST", "/api/SalesOrder?$expand=Details($select=Guid;$orderby=LineNumber)", {
    DocNumber: doc,
    SellToCustomer: "OK-C",
    Details: quantities.map((Quantity, i) => ({ LineNumber: i + 1, Product: "OK-P", Quantity, UnitPrice: 2 })),
  });
  expect(res.status).toBe(201);
  const body = await json(res);
  return { guid: body.Guid as string, lines: body.Details.map((d: { Guid: string }) => d.Guid) as string[] };
}

const quantityOf = async (line: string) =>
  (await json(await admin.request("GET", `/api/SalesOrderDetail(${line})?$select=Quantity`))).Quantity;

const refused = async (res: Response, status: number, message: string) => {
  expect(res.status).toBe(status);
  const { error } = await json(res);
  expect(error.message).toBe(message);
};

beforeAll(async () => {
  ({ admin, reader } = await signedInTenant("owned-key"));
  expect((await admin.request("POST", "/api/Customer", { Id: "OK-C", CreditLimit: 100000 })).status).toBe(201);
  expect((await admin.request("POST", "/api/Product", { SKU: "OK-P", Cost: 1, Price: 2 })).status).toBe(201);
});

describe("PATCH and DELETE an owned item under its owner", () => {
  it("are refused to a reader, as at the item's own address", async () => {
    const { guid, lines } = await order("OK-10", [1]);
    expect(
      (await reader.request("PATCH", `/api/SalesOrder(${guid})/Details(${lines[0]})`, { Quantity: 2 })).status,
    ).toBe(403);
    expect((await reader.request("DELETE", `/api/SalesOrder(${guid})/Details(${lines[0]})`)).status).toBe(403);
    expect((await reader.request("GET", `/api/SalesOrder(${guid})/Details(${lines[0]})`)).status).toBe(200);
  });
});

describe("an owned item under its owner in a workflow", () => {
  it("stages as SalesOrderDetail(…) does: the same ETags, either address seeing the other's changes, saved at commit", async () => {
    const { guid, lines } = await order("OK-12", [1, 1]);
    const [first, second] = lines as [string, string];
    const under = (line: string) => `/api/SalesOrder(${guid})/Details(${line})`;
    const wf = await workflow(admin);
    const patched = await wf.step("PATCH", `${under(first)}?$select=Quantity`, { Quantity: 4 });
    expect([patched.status, patched.headers.get("ETag")]).toEqual([200, 'W/"1+1"']);
    expect(dataOf(await json(patched))).toEqual({ Guid: first, Quantity: 4 });
    // the direct address sees the staged change, and its If-Match takes the ETag the owned one showed
    const direct = await wf.step(
      "PATCH",
      `/api/SalesOrderDetail(${first})?$select=Quantity`,
      { Quantity: 5 },
      wf.index,
      {
        "If-Match": 'W/"1+1"',
      },
    );
    expect([direct.status, direct.headers.get("ETag")]).toEqual([200, 'W/"1+2"']);
    const stale = await wf.step("PATCH", under(first), { Quantity: 6 }, wf.index, { "If-Match": 'W/"1+1"' });
    expect(stale.status).toBe(412);
    const read = await wf.step("GET", `${under(first)}?$select=Quantity`);
    expect([read.headers.get("ETag"), dataOf(await json(read))]).toEqual(['W/"1+2"', { Guid: first, Quantity: 5 }]);
    expect((await wf.step("DELETE", under(second))).status).toBe(204);
    await refused(await wf.step("GET", under(second)), 404, `SalesOrder(${guid})/Details has no item ${second}.`);
    // the main data has not moved
    expect(await quantityOf(first)).toBe(1);
    expect((await admin.request("GET", `/api/SalesOrderDetail(${second})`)).status).toBe(200);
    const commit = await wf.step("POST", "/api/workflow/commit");
    expect(commit.status, JSON.stringify(await json(commit.clone()))).toBe(200);
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
    expect(added.status, JSON.stringify(await json(added.clone()))).toBe(200);
    const staged = (await json(added)).Details[1].Guid as string;
    const read = await wf.step("GET", `/api/SalesOrder(${a.guid})/Details(${staged})?$select=Quantity`);
    expect(dataOf(await json(read))).toEqual({ Guid: staged, Quantity: 8 });
    const at = wf.index;
    const wrong = await wf.step("PATCH", `/api/SalesOrder(${b.guid})/Details(${staged})`, { Quantity: 2 });
    await refused(wrong, 404, `SalesOrder(${b.guid})/Details has no item ${staged}.`);
    expect(wf.index).toBe(at);
    // outside the workflow the line does not exist yet
    await refused(
      await admin.request("GET", `/api/SalesOrder(${a.guid})/Details(${staged})`),
      404,
      `SalesOrder(${a.guid})/Details has no item ${staged}.`,
    );
    expect((await admin.request("DELETE", `/api/workflow/${wf.id}`)).status).toBe(204);
  });
});
