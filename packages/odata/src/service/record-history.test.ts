import { serviceTenant } from "@bizdata/test-kit/odata-harness";
import { describe, expect, it } from "vitest";

type History = { value: Record<string, unknown>[]; "@odata.nextLink"?: string };

async function api() {
  const tenant = await serviceTenant("rh");
  const ok = async (method: string, url: string, body?: unknown) => {
    const res = await tenant.call(method, url, body === undefined ? {} : { body });
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? undefined : ((await res.json()) as Record<string, unknown>);
  };
  return { ...tenant, ok, history: async (url: string) => (await ok("GET", url)) as unknown as History };
}

describe("a record's $history", () => {
  it("lists its changes newest first, with when, which properties and, of an owned item, which", async () => {
    const t = await api();
    await t.ok("POST", "/api/Product", { SKU: "P" });
    await t.ok("POST", "/api/Customer", { Id: "C1" });
    const order = (await t.ok("POST", "/api/SalesOrder", { DocNumber: "SO-1", SellToCustomer: "C1" }))!.Guid;
    await t.ok("PATCH", `/api/SalesOrder(${order})`, { Description: "first" });
    await t.ok("PATCH", `/api/SalesOrder(${order})`, { Details: [{ Product: "P", Quantity: 2 }] });
    const { value } = await t.history(`/api/SalesOrder(${order})/$history`);
    expect(value.map((e) => e.kind)).toEqual(["update", "update", "create"]);
    // the deep update changed the order's lines (and the total its logic keeps)
    expect(value[0]).toMatchObject({
      properties: expect.arrayContaining(["Details"]),
      items: [{ entity: "SalesOrderDetail", key: expect.any(String), kind: "create", properties: null }],
    });
    expect(value[1]).toMatchObject({ kind: "update", properties: ["Description"] });
    for (const entry of value) {
      expect(entry.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?[+-]\d\d:\d\d$/);
      expect(Date.parse(entry.at as string)).toBeGreaterThan(Date.now() - 600_000);
    }
    expect(value[2]!.properties).toEqual([]);
  });

  it("keeps a deleted record's history, pages with $top, and refuses other options and paths", async () => {
    const t = await api();
    const guid = (await t.ok("POST", "/api/Product", { SKU: "Q" }))!.Guid;
    for (const cost of [1, 2, 3]) await t.ok("PATCH", `/api/Product(${guid})`, { Cost: cost });
    await t.ok("DELETE", `/api/Product(${guid})`);
    const first = await t.history(`/api/Product(${guid})/$history?$top=2`);
    expect(first.value.map((e) => e.kind)).toEqual(["delete", "update"]);
    const second = await t.history(first["@odata.nextLink"]!);
    const third = await t.history(second["@odata.nextLink"]!);
    expect([...second.value, ...third.value].map((e) => e.kind)).toEqual(["update", "update", "create"]);
    expect(third["@odata.nextLink"]).toBeUndefined();
    expect((await t.call("GET", `/api/Product(${guid})/$history?$filter=kind eq 'create'`)).status).toBe(400);
    expect((await t.call("GET", "/api/Product/$history")).status).toBe(400);
    // a record that never was has no history
    expect((await t.history("/api/Product(00000000-0000-4000-8000-000000000001)/$history")).value).toEqual([]);
  });

  it("shows only the tenant's own changes", async () => {
    const a = await api();
    const b = await api();
    const guid = (await a.ok("POST", "/api/Product", { SKU: "A" }))!.Guid;
    expect((await b.history(`/api/Product(${guid})/$history`)).value).toEqual([]);
  });
});
