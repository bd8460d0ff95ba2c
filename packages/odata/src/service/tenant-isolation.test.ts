import { type ServiceTenant, serviceTenant } from "@bizdata/test-kit/odata-harness";
import { dataOf } from "@bizdata/test-kit/payload-data";
import { beforeAll, describe, expect, it } from "vitest";

let first: ServiceTenant;
let second: ServiceTenant;
let guid: string;

beforeAll(async () => {
  first = await serviceTenant("iso-a");
  second = await serviceTenant("iso-b");
  const res = await first.call("POST", "/api/Product", { body: { SKU: "SECRET", Cost: 9 } });
  guid = ((await res.json()) as { Guid: string }).Guid;
});

describe("tenant isolation", () => {
  it("a second tenant cannot read, update or delete the first's records (404)", async () => {
    expect((await second.call("GET", `/api/Product(${guid})`)).status).toBe(404);
    expect((await second.call("PATCH", `/api/Product(${guid})`, { body: { Cost: 0 } })).status).toBe(404);
    expect((await second.call("DELETE", `/api/Product(${guid})`)).status).toBe(404);
    const list = (await (await second.call("GET", "/api/Product?$select=SKU&$count=true")).json()) as any;
    expect(dataOf(list)).toEqual({ "@odata.count": 0, value: [] });
    expect(await (await second.call("GET", "/api/Product/$count")).text()).toBe("0");
    // and the record is untouched for its owner
    const own = await first.call("GET", `/api/Product(${guid})?$select=SKU,Cost`);
    // untouched: still the version it was created at
    expect(own.headers.get("ETag")).toBe('W/"1"');
    expect(dataOf(await own.json())).toEqual({ Guid: guid, SKU: "SECRET", Cost: 9 });
  });

  it("a reference cannot point into another tenant, by Guid or by natural key", async () => {
    const byGuid = await second.call("POST", "/api/SalesOrderDetail", {
      body: {
        SalesOrder: guid,
        Product: guid,
        Quantity: 1,
      },
    });
    expect(byGuid.status).toBe(400);
    const byKey = await second.call("POST", "/api/SalesOrder", {
      body: {
        DocNumber: "X",
        Details: [{ Product: "SECRET", Quantity: 1 }],
      },
    });
    expect(byKey.status).toBe(400);
    expect(((await byKey.json()) as any).error.code).toBe("ReferenceNotFound");
  });

  it("natural keys are unique per tenant, not across tenants", async () => {
    expect((await second.call("POST", "/api/Product", { body: { SKU: "SECRET" } })).status).toBe(201);
  });
});
