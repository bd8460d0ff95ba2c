/**
 * What the host adds to an owned item under its owner (`SalesOrder(…)/Details(…)`; the service's
 * answers to it are tested in packages/odata, its staging in a workflow in packages/workflow): a
 * reader's role, as at the item's own address.
 */
import { type Caller, signedInTenant } from "@bizdata/test-kit/host-app";
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

beforeAll(async () => {
  ({ admin, reader } = await signedInTenant("owned-key"));
  expect((await admin.request("POST", "/api/Customer", { Id: "OK-C", CreditLimit: 100000 })).status).toBe(201);
  expect((await admin.request("POST", "/api/Product", { SKU: "OK-P", Cost: 1, Price: 2 })).status).toBe(201);
});

describe("POST, PATCH and DELETE an owned item under its owner", () => {
  it("are refused to a reader, as at the item's own address", async () => {
    const { guid, lines } = await order("OK-10", [1]);
    expect(
      (await reader.request("PATCH", `/api/SalesOrder(${guid})/Details(${lines[0]})`, { Quantity: 2 })).status,
    ).toBe(403);
    expect((await reader.request("DELETE", `/api/SalesOrder(${guid})/Details(${lines[0]})`)).status).toBe(403);
    const line = { LineNumber: 2, Product: "OK-P", Quantity: 1 };
    expect((await reader.request("POST", `/api/SalesOrder(${guid})/Details`, line)).status).toBe(403);
    expect((await reader.request("GET", `/api/SalesOrder(${guid})/Details(${lines[0]})`)).status).toBe(200);
  });
});
