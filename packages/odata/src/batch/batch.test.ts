/**
 * `$batch` through the service (spec 4.5, api-conventions: Batch), in the JSON and the multipart
 * format: parts in order, `$<id>` references, changesets committed or rolled back as one, limits,
 * malformed batches, and the statements a changeset costs. What the host adds (permissions per
 * part, its own routes, workflow steps, the OData-Version per part, the token) is tested in
 * packages/host.
 */

import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { type ServiceTenant, serviceHarness, serviceTenant } from "@bizdata/test-kit/odata-harness";
import { dataOf } from "@bizdata/test-kit/payload-data";
import { recording } from "@bizdata/test-kit/recording-database";
import { beforeAll, describe, expect, it } from "vitest";

let api: ServiceTenant;
const json = async (res: Response) => (await res.json()) as any;

beforeAll(async () => {
  api = await serviceTenant("batch");
  await api.enable("PriceLevels");
  for (const [entity, body] of [
    ["PriceLevel", { Name: "Dealer", DiscountPercent: 50 }],
    ["Product", { SKU: "B-1", Price: 10 }],
    ["Product", { SKU: "B-2", Price: 4 }],
    ["Contact", { Email: "b@example.com" }],
    ["Customer", { Id: "BC-1", PrimaryContact: "b@example.com" }],
  ] as const) {
    expect((await api.call("POST", `/api/${entity}`, { body })).status).toBe(201);
  }
});

const batch = (who: ServiceTenant, requests: unknown[]) => who.call("POST", "/api/$batch", { body: { requests } });
const count = async (path: string) => Number(await (await api.call("GET", path)).text());

describe("$batch, JSON format", () => {
  it("runs GET, POST, PATCH and DELETE parts in order, each answered with its status, headers and body", async () => {
    const res = await batch(api, [
      { id: "a", method: "POST", url: "Product?$select=SKU", body: { SKU: "J-1", Cost: 1.5 } },
      { id: "b", method: "GET", url: "Product?$filter=SKU eq 'J-1'&$select=SKU,Cost" },
      { id: "c", method: "PATCH", url: "$a?$select=Cost", body: { Cost: 2 }, dependsOn: ["a"] },
      { id: "d", method: "DELETE", url: "$a", dependsOn: ["a"] },
      { id: "e", method: "GET", url: "/api/Product/$count?$filter=SKU eq 'J-1'" },
    ]);
    expect(res.status).toBe(200);
    const { responses } = await json(res);
    expect(responses.map((r: { id: string; status: number }) => [r.id, r.status])).toEqual([
      ["a", 201],
      ["b", 200],
      ["c", 200],
      ["d", 204],
      ["e", 200],
    ]);
    expect(responses[0].headers.location).toMatch(/^\/api\/Product\(/);
    // each part answers as it would alone: its context, its record's ETag in body and header
    expect(responses[0].headers.etag).toBe('W/"1"');
    expect(responses[0].body).toEqual({
      "@odata.context": "/api/$metadata#Product(SKU)/$entity",
      "@odata.etag": 'W/"1"',
      Guid: expect.any(String),
      SKU: "J-1",
    });
    expect(responses[1].body["@odata.context"]).toBe("/api/$metadata#Product(SKU,Cost)");
    expect(dataOf(responses[1].body.value)).toEqual([{ Guid: responses[0].body.Guid, SKU: "J-1", Cost: 1.5 }]);
    expect(responses[2].headers.etag).toBe('W/"2"');
    expect(dataOf(responses[2].body)).toEqual({ Guid: responses[0].body.Guid, Cost: 2 });
    expect(responses[4].body).toBe("0");
  });

  it("commits a changeset as one: references between its parts by $id, natural keys, hooks", async () => {
    const res = await batch(api, [
      { id: "1", atomicityGroup: "g", method: "POST", url: "Customer", body: { Id: "BC-NEW" } },
      {
        id: "2",
        atomicityGroup: "g",
        method: "POST",
        url: "SalesOrder?$select=TotalPrice,SellToCustomer&$expand=Details($select=UnitPrice)",
        body: {
          DocNumber: "SO-B1",
          SellToCustomer: "$1",
          PriceLevel: "Dealer",
          Details: [{ Product: "B-1", Quantity: 2 }],
        },
      },
    ]);
    const { responses } = await json(res);
    expect(responses.map((r: { status: number }) => r.status)).toEqual([201, 201]);
    expect(responses[1].body.SellToCustomer).toBe(responses[0].body.Guid);
    // the line was priced by business logic (price level 50% off) and the order totalled
    expect(responses[1].body.Details[0].UnitPrice).toBe(5);
    expect(responses[1].body.TotalPrice).toBe(10);
  });

  it("rolls a failing changeset back entirely and leaves other parts and changesets alone", async () => {
    const before = await count("/api/Product/$count");
    const res = await batch(api, [
      { id: "ok1", method: "POST", url: "Product", body: { SKU: "R-ok1" } },
      { id: "x1", atomicityGroup: "bad", method: "POST", url: "Product", body: { SKU: "R-x1" } },
      { id: "x2", atomicityGroup: "bad", method: "POST", url: "Product", body: { SKU: "R-x2" } },
      {
        id: "x3",
        atomicityGroup: "bad",
        method: "POST",
        url: "SalesOrder",
        body: { DocNumber: "R", SellToCustomer: "BC-1", Details: [{ Product: "NOPE", Quantity: 1 }] },
      },
      { id: "y1", atomicityGroup: "good", method: "POST", url: "Product", body: { SKU: "R-y1" } },
      { id: "after", method: "GET", url: "Product/$count", dependsOn: ["x3"] },
    ]);
    const { responses } = await json(res);
    const byId = Object.fromEntries(responses.map((r: { id: string }) => [r.id, r]));
    expect(byId.ok1.status).toBe(201);
    expect(byId.x3.status).toBe(400);
    expect(byId.x3.body.error).toMatchObject({ code: "ReferenceNotFound", target: "Details[0].Product" });
    expect([byId.x1.status, byId.x2.status]).toEqual([424, 424]);
    expect(byId.y1.status).toBe(201);
    expect(byId.after.status).toBe(424);
    expect(await count("/api/Product/$count")).toBe(before + 2);
    expect(await count("/api/Product/$count?$filter=startswith(SKU,'R-x')")).toBe(0);
  });

  it("answers a part aimed at another tenant's record with 404", async () => {
    const other = await serviceTenant("batch-other");
    const created = await json(await other.call("POST", "/api/Product", { body: { SKU: "THEIRS" } }));
    const { responses } = await json(
      await batch(api, [
        { id: "g", method: "GET", url: `Product(${created.Guid})` },
        { id: "p", method: "PATCH", url: `Product(${created.Guid})`, body: { Cost: 1 } },
        { id: "d", method: "DELETE", url: `Product(${created.Guid})` },
      ]),
    );
    expect(responses.map((r: { status: number }) => r.status)).toEqual([404, 404, 404]);
    expect((await other.call("GET", `/api/Product(${created.Guid})`)).status).toBe(200);
  });

  it("takes `$<id>` for a part of the batch before a resource of the service, and refuses one that created nothing", async () => {
    const { responses } = await json(
      await batch(api, [
        // a request may be called "metadata": `$metadata` is then that part's record
        { id: "metadata", method: "POST", url: "Product", body: { SKU: "B-REF" } },
        { id: "read", method: "GET", url: "$metadata?$select=SKU", dependsOn: ["metadata"] },
        { id: "list", method: "GET", url: "Product/$count" },
        { id: "nothing", method: "GET", url: "$list", dependsOn: ["list"] },
        // a system resource that no part is called: not a reference, and not one the service offers
        { id: "system", method: "GET", url: "$all" },
      ]),
    );
    const byId = Object.fromEntries(responses.map((r: { id: string }) => [r.id, r]));
    expect(byId.metadata.status).toBe(201);
    expect(byId.read).toMatchObject({ status: 200, body: { SKU: "B-REF" } });
    expect(byId.nothing).toMatchObject({ status: 400, body: { error: { code: "InvalidBatch" } } });
    expect(byId.nothing.body.error.message).toMatch(/\$list, which created nothing/);
    expect(byId.system).toMatchObject({ status: 400, body: { error: { code: "InvalidBatch" } } });
    expect(byId.system.body.error.message).toMatch(/"\$all" is not a resource of the service/);
  });

  it.each([
    [
      "more than 64 parts",
      Array.from({ length: 65 }, (_, i) => ({ id: `${i}`, method: "GET", url: "Product/$count" })),
      "BatchTooLarge",
    ],
    [
      "more than 64 writes in one changeset",
      Array.from({ length: 65 }, (_, i) => ({
        id: `${i}`,
        atomicityGroup: "g",
        method: "POST",
        url: "Product",
        body: { SKU: `L-${i}` },
      })),
      "BatchTooLarge",
    ],
    ["an unknown method", [{ id: "1", method: "PUT", url: "Product", body: {} }], "InvalidBatch"],
    ["a nested batch", [{ id: "1", method: "POST", url: "$batch", body: { requests: [] } }], "InvalidBatch"],
    ["a request without url", [{ id: "1", method: "GET" }], "InvalidBatch"],
  ])("refuses %s with 400 and stores nothing", async (_, requests, code) => {
    const before = await count("/api/Product/$count");
    const res = await batch(api, requests);
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe(code);
    expect(await count("/api/Product/$count")).toBe(before);
  });

  it("refuses a part's `__proto__` property as it refuses a request's, and stores none of its changeset", async () => {
    const before = await count("/api/Product/$count");
    // the parts' bodies are copied for the changeset: `__proto__` must stay the property JSON.parse made
    const parts = [
      `{"id":"1","atomicityGroup":"g","method":"POST","url":"Product","body":{"SKU":"B-PROTO-1"}}`,
      `{"id":"2","atomicityGroup":"g","method":"POST","url":"Product","body":{"SKU":"B-PROTO-2","__proto__":{"Cost":1}}}`,
    ];
    const res = await api.call("POST", "/api/$batch", { body: `{"requests":[${parts.join(",")}]}` });
    const failed = (await json(res)).responses.find((r: { id: string }) => r.id === "2");
    expect(failed).toMatchObject({ id: "2", status: 400, body: { error: { code: "ValidationError" } } });
    expect(JSON.stringify(failed.body.error)).toContain('"target":"__proto__"');
    expect(await count("/api/Product/$count")).toBe(before);
  });

  it("refuses a body that is not a batch", async () => {
    const res = await api.call("POST", "/api/$batch", { body: { value: [] } });
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe("InvalidBatch");
  });
});

describe("$batch, multipart format", () => {
  const CRLF = "\r\n";
  const part = (lines: string[]) =>
    ["Content-Type: application/http", "Content-Transfer-Encoding: binary", "", ...lines].join(CRLF);

  it("runs a changeset and plain parts and answers in multipart", async () => {
    const body = [
      "--batch_1",
      part(["GET Product/$count HTTP/1.1", "", ""]),
      "--batch_1",
      "Content-Type: multipart/mixed; boundary=changeset_1",
      "",
      "--changeset_1",
      part(["POST Product HTTP/1.1", "Content-ID: 1", "Content-Type: application/json", "", '{"SKU":"M-1"}']).replace(
        "Content-Transfer-Encoding: binary",
        "Content-Transfer-Encoding: binary\r\nContent-ID: 1",
      ),
      "--changeset_1",
      part(["PATCH $1 HTTP/1.1", "Content-Type: application/json", "", '{"Cost":3}']),
      "--changeset_1--",
      "--batch_1--",
      "",
    ].join(CRLF);
    const res = await api.call("POST", "/api/$batch", {
      body,
      headers: {
        "Content-Type": "multipart/mixed; boundary=batch_1",
      },
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^multipart\/mixed; ?boundary=/);
    expect(text).toContain("HTTP/1.1 200 OK");
    expect(text).toContain("HTTP/1.1 201 Created");
    expect(text).toMatch(/HTTP\/1.1 20[04]/);
    const products = await json(await api.call("GET", "/api/Product?$filter=SKU eq 'M-1'&$select=Cost"));
    expect(products.value[0].Cost).toBe(3);
  });

  it("answers a failed changeset with its one failure and stores none of it", async () => {
    const body = [
      "--b",
      "Content-Type: multipart/mixed; boundary=cs",
      "",
      "--cs",
      part(["POST Product HTTP/1.1", "Content-ID: 1", "Content-Type: application/json", "", '{"SKU":"MF-1"}']),
      "--cs",
      part(["POST Product HTTP/1.1", "Content-ID: 2", "Content-Type: application/json", "", '{"SKU":"MF-1"}']),
      "--cs--",
      "--b--",
      "",
    ].join(CRLF);
    const res = await api.call("POST", "/api/$batch", {
      body,
      headers: { "Content-Type": "multipart/mixed; boundary=b" },
    });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).toContain("HTTP/1.1 400 Bad Request");
    expect(text).toContain("DuplicateKey");
    expect(text).not.toContain("201 Created");
    expect(await count("/api/Product/$count?$filter=SKU eq 'MF-1'")).toBe(0);
  });

  it.each([
    ["a missing boundary", "multipart/mixed", "--x\r\n\r\n--x--"],
    ["a body without its boundary", "multipart/mixed; boundary=b", "nothing here"],
    [
      "a part that is not JSON",
      "multipart/mixed; boundary=b",
      ["--b", part(["POST Product HTTP/1.1", "Content-Type: application/json", "", "{not json"]), "--b--", ""].join(
        CRLF,
      ),
    ],
  ])("refuses %s with 400 InvalidBatch", async (_, contentType, body) => {
    const res = await api.call("POST", "/api/$batch", { body, headers: { "Content-Type": contentType } });
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe("InvalidBatch");
  });
});

describe("$batch statements", () => {
  it("looks natural keys up once per target entity per changeset, however many references it has", async () => {
    const log: string[] = [];
    const who = (await serviceHarness({ db: recording(await testDatabase(), log) })).tenant(
      uniqueTenant("batch-stmts"),
    );
    for (let i = 0; i < 5; i++) await who.call("POST", "/api/Product", { body: { SKU: `S-${i}`, Price: 1 } });
    await who.call("POST", "/api/Customer", { body: { Id: "SC" } });
    const orders = (n: number, lines: number) =>
      Array.from({ length: n }, (_, i) => ({
        id: `${i}`,
        atomicityGroup: "g",
        method: "POST",
        url: "SalesOrder",
        body: {
          DocNumber: `SO-${n}-${lines}-${i}`,
          SellToCustomer: "SC",
          Details: Array.from({ length: lines }, (_, j) => ({ Product: `S-${j % 5}`, Quantity: 1 })),
        },
      }));
    const lookups = async (n: number, lines: number) => {
      log.length = 0;
      const res = await who.call("POST", "/api/$batch", { body: { requests: orders(n, lines) } });
      expect((await json(res)).responses.every((r: { status: number }) => r.status === 201)).toBe(true);
      return log.filter((s) => s.includes("::text = ANY(")).length;
    };
    const few = await lookups(4, 1);
    const many = await lookups(4, 5);
    // customers and products: one lookup each for the whole changeset
    expect(few).toBe(2);
    expect(many).toBe(2);
  });

  it("stores a changeset of 64 orders × 5 lines, with their whole business logic, in at most 40 statements", async () => {
    const log: string[] = [];
    const who = (await serviceHarness({ db: recording(await testDatabase(), log) })).tenant(uniqueTenant("batch-64"));
    // lines priced at the order's price level, the customer's credit checked on save: every hook reads
    for (const feature of ["PriceLevels", "CreditCheck"]) await who.enable(feature);
    await who.call("POST", "/api/PriceLevel", { body: { Name: "Half", DiscountPercent: 50 } });
    for (let i = 0; i < 20; i++) await who.call("POST", "/api/Product", { body: { SKU: `P-${i}`, Price: i + 1 } });
    for (let i = 0; i < 10; i++)
      await who.call("POST", "/api/Customer", { body: { Id: `C-${i}`, CreditLimit: 1_000_000 } });
    const requests = Array.from({ length: 64 }, (_, i) => ({
      id: `${i}`,
      atomicityGroup: "g",
      method: "POST",
      url: "SalesOrder",
      body: {
        DocNumber: `SO-64-${i}`,
        SellToCustomer: `C-${i % 10}`,
        ...(i % 2 === 0 && { PriceLevel: "Half" }),
        Details: Array.from({ length: 5 }, (_, j) => ({ Product: `P-${(i + j) % 20}`, Quantity: j + 1 })),
      },
    }));
    log.length = 0;
    const res = await who.call("POST", "/api/$batch", { body: { requests } });
    const { responses } = await json(res);
    expect(responses.map((r: { status: number }) => r.status)).toEqual(requests.map(() => 201));
    // an insert goes with its change log rows (logged-writes.ts)
    const inserts = log.filter((s) => s.startsWith("WITH r AS (INSERT"));
    const lookups = log.filter((s) => s.includes("::text = ANY("));
    // one natural-key lookup per target entity (customers, price levels, products), which also
    // loads what the hooks read, and one insert per table
    expect({
      lookups: lookups.length,
      inserts: inserts.length,
      other: log.length - lookups.length - inserts.length,
    }).toEqual({ lookups: 3, inserts: 2, other: 0 });
    expect(log.length).toBeLessThanOrEqual(40);
    // and the logic ran: lines priced (half off every other order), orders totalled
    const stored = await json(
      await who.call(
        "GET",
        "/api/SalesOrder?$filter=startswith(DocNumber,'SO-64-')&$select=DocNumber,TotalPrice&$expand=Details($select=UnitPrice,Quantity)&$orderby=DocNumber&$top=2",
      ),
    );
    expect(stored.value[0]).toMatchObject({
      DocNumber: "SO-64-0",
      TotalPrice: (1 * 1 + 2 * 2 + 3 * 3 + 4 * 4 + 5 * 5) / 2,
    });
    expect(stored.value[1].DocNumber).toBe("SO-64-1");
    expect(stored.value[1].TotalPrice).toBe(2 * 1 + 3 * 2 + 4 * 3 + 5 * 4 + 6 * 5);
  });

  it("blames the part whose insert fails, though its insert waited until a later part read", async () => {
    const res = await batch(api, [
      { id: "1", atomicityGroup: "g", method: "POST", url: "Product", body: { SKU: "WB-dup" } },
      { id: "2", atomicityGroup: "g", method: "POST", url: "Product", body: { SKU: "WB-other" } },
      { id: "3", atomicityGroup: "g", method: "POST", url: "Product", body: { SKU: "WB-dup" } },
      // its read sends the inserts that waited
      { id: "4", atomicityGroup: "g", method: "POST", url: "Product?$select=SKU", body: { SKU: "WB-last" } },
    ]);
    const { responses } = await json(res);
    const byId = Object.fromEntries(responses.map((r: { id: string }) => [r.id, r]));
    expect([byId[1].status, byId[2].status, byId[3].status, byId[4].status]).toEqual([424, 424, 400, 424]);
    expect(byId[3].body.error).toMatchObject({ code: "DuplicateKey", target: "SKU" });
    expect(await count("/api/Product/$count?$filter=startswith(SKU,'WB-')")).toBe(0);
  });
});
