import { type Caller, dataOf, signedInTenant } from "@bizdata/test-kit/host-app";
import { beforeAll, describe, expect, it } from "vitest";

let first: Caller;
let second: Caller;
let guid: string;

beforeAll(async () => {
  ({ admin: first } = await signedInTenant("iso-a"));
  ({ admin: second } = await signedInTenant("iso-b"));
  const res = await first.request("POST", "/api/Product", { SKU: "SECRET", Cost: 9 });
  guid = ((await res.json()) as { Guid: string }).Guid;
});

describe("tenant isolation", () => {
  it("a second tenant cannot read, update or delete the first's records (404)", async () => {
    expect((await second.request("GET", `/api/Product(${guid})`)).status).toBe(404);
    expect((await second.request("PATCH", `/api/Product(${guid})`, { Cost: 0 })).status).toBe(404);
    expect((await second.request("DELETE", `/api/Product(${guid})`)).status).toBe(404);
    const list = (await (await second.request("GET", "/api/Product?$select=SKU&$count=true")).json()) as any;
    expect(dataOf(list)).toEqual({ "@odata.count": 0, value: [] });
    expect(await (await second.request("GET", "/api/Product/$count")).text()).toBe("0");
    // and the record is untouched for its owner
    const own = await first.request("GET", `/api/Product(${guid})?$select=SKU,Cost`);
    // untouched: still the version it was created at
    expect(own.headers.get("ETag")).toBe('W/"1"');
    expect(dataOf(await own.json())).toEqual({ Guid: guid, SKU: "SECRET", Cost: 9 });
  });

  it("a reference cannot point into another tenant, by Guid or by natural key", async () => {
    const byGuid = await second.request("POST", "/api/SalesOrderDetail", {
      SalesOrder: guid,
      Product: guid,
      Quantity: 1,
    });
    expect(byGuid.status).toBe(400);
    const byKey = await second.request("POST", "/api/SalesOrder", {
      DocNumber: "X",
      Details: [{ Product: "SECRET", Quantity: 1 }],
    });
    expect(byKey.status).toBe(400);
    expect(((await byKey.json()) as any).error.code).toBe("ReferenceNotFound");
  });

  it("natural keys are unique per tenant, not across tenants", async () => {
    expect((await second.request("POST", "/api/Product", { SKU: "SECRET" })).status).toBe(201);
  });
});
