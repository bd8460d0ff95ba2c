import { type ServiceTenant, serviceTenant } from "@bizdata/test-kit/odata-harness";
import { dataOf } from "@bizdata/test-kit/payload-data";
import { beforeAll, describe, expect, it } from "vitest";

let api: ServiceTenant;
beforeAll(async () => {
  api = await serviceTenant("writes");
});

const json = async (res: Response) => (await res.json()) as any;

describe("POST, PATCH, DELETE", () => {
  it("creates with 201, a Location and the entity shaped by $select (Guid only without)", async () => {
    const res = await api.call("POST", "/api/Product?$select=SKU,Cost,Price", { body: { SKU: "W-1", Cost: 2.25 } });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(res.headers.get("Location")).toBe(`/api/Product(${body.Guid})`);
    expect(dataOf(body)).toEqual({ Guid: body.Guid, SKU: "W-1", Cost: 2.25, Price: null });
    const bare = await json(await api.call("POST", "/api/Product", { body: { SKU: "W-2" } }));
    expect(Object.keys(bare)).toEqual(["@odata.context", "@odata.etag", "Guid"]);
  });

  it("answers 204 with Location for Prefer: return=minimal", async () => {
    const res = await api.call("POST", "/api/Product", { body: { SKU: "W-3" }, headers: { Prefer: "return=minimal" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("Location")).toMatch(/^\/api\/Product\([0-9a-f-]{36}\)$/);
    expect(res.headers.get("Preference-Applied")).toBe("return=minimal");
    expect(await res.text()).toBe("");
  });

  it("lets a client choose the Guid on create, and rejects the same Guid twice", async () => {
    const guid = "6f1c2d3e-4b5a-4c6d-8e9f-0a1b2c3d4e5f";
    const first = await api.call("POST", "/api/Country", { body: { Guid: guid.toUpperCase(), Code: "ZZ" } });
    expect(first.status).toBe(201);
    expect((await json(first)).Guid).toBe(guid);
    const again = await api.call("POST", "/api/Country", { body: { Guid: guid, Code: "ZY" } });
    expect(again.status).toBe(400);
    expect((await json(again)).error.code).toBe("DuplicateKey");
  });

  it("rejects a duplicate natural key with 400 DuplicateKey naming it", async () => {
    await api.call("POST", "/api/Customer", { body: { Id: "DUP" } });
    const res = await api.call("POST", "/api/Customer", { body: { Id: "DUP" } });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({ code: "DuplicateKey", target: "Id" });
  });

  it("updates with PATCH (200, shaped by $select) and leaves other properties alone", async () => {
    const { Guid } = await json(
      await api.call("POST", "/api/Product", { body: { SKU: "W-4", Cost: 1, SalesDescription: "Old" } }),
    );
    const res = await api.call("PATCH", `/api/Product(${Guid})?$select=SKU,Cost,SalesDescription`, {
      body: { Cost: 3.5 },
    });
    expect(res.status).toBe(200);
    expect(dataOf(await json(res))).toEqual({ Guid, SKU: "W-4", Cost: 3.5, SalesDescription: "Old" });
    const minimal = await api.call("PATCH", `/api/Product(${Guid})`, {
      body: { Cost: 4 },
      headers: { Prefer: "return=minimal" },
    });
    expect(minimal.status).toBe(204);
  });

  it("merges a partial complex value and keeps the Title derived", async () => {
    const { Guid } = await json(
      await api.call("POST", "/api/Contact", {
        body: {
          Email: "m@example.com",
          FirstName: "Max",
          MailingAddress: { City: "Berlin", Street: "A 1" },
        },
      }),
    );
    const res = await api.call("PATCH", `/api/Contact(${Guid})?$select=MailingAddress,Title,FullName`, {
      body: {
        LastName: "Muster",
        MailingAddress: { City: "Bonn" },
      },
    });
    expect(await json(res)).toMatchObject({
      Title: "Max Muster",
      FullName: "Max Muster",
      MailingAddress: { City: "Bonn", Street: "A 1" },
    });
  });

  it("writes owned collections inline on create and replaces them on update", async () => {
    const created = await json(
      await api.call("POST", "/api/Product", {
        body: {
          SKU: "W-5",
          Uoms: [{ Name: "Each" }, { Name: "Box", Factor: 12 }],
        },
      }),
    );
    const uoms = async () =>
      (await json(await api.call("GET", "/api/ProductUom?$select=Name,Factor,Product"))).value.filter(
        (u: { Product: string }) => u.Product === created.Guid,
      );
    const before = await uoms();
    expect(before.map((u: { Name: string }) => u.Name).sort()).toEqual(["Box", "Each"]);
    const box = before.find((u: { Name: string }) => u.Name === "Box");
    await api.call("PATCH", `/api/Product(${created.Guid})`, {
      body: {
        Uoms: [
          { Guid: box.Guid, Factor: 24 },
          { Name: "Pallet", Factor: 480 },
        ],
      },
    });
    const after = await uoms();
    expect(after.map((u: { Name: string; Factor: number }) => `${u.Name}:${u.Factor}`).sort()).toEqual([
      "Box:24",
      "Pallet:480",
    ]);
    // deleting the owner deletes its items
    expect((await api.call("DELETE", `/api/Product(${created.Guid})`)).status).toBe(204);
    expect(await uoms()).toEqual([]);
  });

  it("resolves a reference given by natural key, nested in a complex value and in collection items", async () => {
    await api.call("POST", "/api/Country", { body: { Code: "PA", Name: "Panama" } });
    const contact = await json(
      await api.call("POST", "/api/Contact?$select=MailingAddress", {
        body: {
          Email: "n@example.com",
          MailingAddress: { Country: "PA" },
        },
      }),
    );
    const country = (await json(await api.call("GET", "/api/Country?$select=Code"))).value.find(
      (c: { Code: string }) => c.Code === "PA",
    );
    expect(contact.MailingAddress.Country).toBe(country.Guid);
    await api.call("POST", "/api/Customer", { body: { Id: "NK-1", PrimaryContact: "n@example.com" } });
    await api.call("POST", "/api/Product", { body: { SKU: "NK-P" } });
    const order = await api.call("POST", "/api/SalesOrder?$select=SellToCustomer", {
      body: {
        DocNumber: "SO-NK",
        SellToCustomer: "NK-1",
        Details: [{ Product: "NK-P", Quantity: 2 }],
      },
    });
    expect(order.status).toBe(201);
    const missing = await api.call("POST", "/api/SalesOrder", {
      body: {
        DocNumber: "SO-NK2",
        Details: [
          { Product: "NK-P", Quantity: 1 },
          { Product: "NO-SUCH", Quantity: 1 },
        ],
      },
    });
    expect(missing.status).toBe(400);
    expect((await json(missing)).error).toMatchObject({ code: "ReferenceNotFound", target: "Details[1].Product" });
    // nothing of the failed write was stored
    const orders = (await json(await api.call("GET", "/api/SalesOrder?$select=DocNumber"))).value;
    expect(orders.map((o: { DocNumber: string }) => o.DocNumber)).not.toContain("SO-NK2");
  });

  it("deletes with 204, then 404", async () => {
    const { Guid } = await json(await api.call("POST", "/api/Product", { body: { SKU: "W-6" } }));
    expect((await api.call("DELETE", `/api/Product(${Guid})`)).status).toBe(204);
    expect((await api.call("DELETE", `/api/Product(${Guid})`)).status).toBe(404);
    expect((await api.call("PATCH", `/api/Product(${Guid})`, { body: { Cost: 1 } })).status).toBe(404);
    expect((await api.call("GET", `/api/Product(${Guid})`)).status).toBe(404);
  });

  it("refuses to delete a record other records reference", async () => {
    const { Guid } = await json(await api.call("POST", "/api/PriceLevel", { body: { Name: "Gold" } }));
    await api.call("POST", "/api/Customer", { body: { Id: "PL-C" } });
    const order = await api.call("POST", "/api/SalesOrder", {
      body: {
        DocNumber: "SO-PL",
        PriceLevel: Guid,
        SellToCustomer: "PL-C",
      },
    });
    expect(order.status).toBe(201);
    const res = await api.call("DELETE", `/api/PriceLevel(${Guid})`);
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe("RecordInUse");
  });

  it.each([
    ["POST", "/api/Product(6f1c2d3e-4b5a-4c6d-8e9f-0a1b2c3d4e5f)", 405],
    ["PATCH", "/api/Product", 405],
    ["DELETE", "/api/Product", 405],
    ["POST", "/api/Nope", 404],
  ])("%s %s → %i", async (method, path, status) => {
    const res = await api.call(method, path, { body: {} });
    expect(res.status).toBe(status);
    expect((await json(res)).error.code).toEqual(expect.any(String));
  });
});
