import { limits, type ServiceTenant, serviceTenant } from "@bizdata/test-kit/odata-harness";
import { dataOf } from "@bizdata/test-kit/payload-data";
import { beforeAll, describe, expect, it } from "vitest";

let api: ServiceTenant;
let productGuid: string;
/** the product's ETag as the last good write left it */
let etag: string | null;
beforeAll(async () => {
  api = await serviceTenant("bodies");
  const res = await api.call("POST", "/api/Product", { body: { SKU: "B-1", Cost: 1 } });
  productGuid = ((await res.json()) as { Guid: string }).Guid;
  etag = res.headers.get("ETag");
});

const error = async (res: Response) => ((await res.json()) as { error: any }).error;

/** every bad write must leave the data as it was */
async function productUnchanged() {
  const res = await api.call("GET", `/api/Product(${productGuid})?$select=SKU,Cost,SalesDescription`);
  // the version did not move either: nothing was written
  expect(res.headers.get("ETag")).toBe(etag);
  expect(dataOf(await res.json())).toEqual({ Guid: productGuid, SKU: "B-1", Cost: 1, SalesDescription: null });
  const count = await api.call("GET", "/api/Product/$count");
  expect(await count.text()).toBe("1");
}

describe("bad write bodies", () => {
  it.each([
    ["not JSON", "{SKU: 1}", "InvalidJson", undefined],
    ["empty", "", "EmptyBody", undefined],
    ["only white space", " \r\n", "EmptyBody", undefined],
    ["a property named twice", '{"Cost":2,"Cost":-1}', "DuplicateJsonKey", "Cost"],
    ["a property named twice, once escaped", '{"SKU":"B-2","\\u0053KU":"B-3"}', "DuplicateJsonKey", "SKU"],
    ["an array", "[]", "ValidationError", undefined],
    ["wrong type", { SKU: 5 }, "ValidationError", "SKU"],
    ["decimal as text without IEEE754Compatible", { Cost: "1.5" }, "ValidationError", "Cost"],
    ["too many decimal places", { Cost: 1.23456 }, "ValidationError", "Cost"],
    ["out of bounds", { Cost: -1 }, "ValidationError", "Cost"],
    ["unknown property", { Colour: "red" }, "ValidationError", "Colour"],
    ["wrongly-cased property", { sku: "x" }, "ValidationError", "sku"],
    ["__proto__", '{"__proto__":{"SKU":"x"}}', "ValidationError", "__proto__"],
    ["constructor", { constructor: "x" }, "ValidationError", "constructor"],
    ["read-only Guid on update", { Guid: "6f1c2d3e-4b5a-4c6d-8e9f-0a1b2c3d4e5f" }, "ValidationError", "Guid"],
    ["virtual property", { RecordReadOnly: [] }, "ValidationError", "RecordReadOnly"],
    ["number JSON cannot carry exactly", '{"Cost": 0.1000000000000000000001}', "NumberNotExact", "Cost"],
    ["huge number", '{"Cost": 123456789012345678901234567890}', "NumberNotExact", "Cost"],
    ["null for a required property", { SKU: null }, "ValidationError", "SKU"],
  ])("PATCH with %s → 400", async (_, body, code, target) => {
    const res = await api.call("PATCH", `/api/Product(${productGuid})`, { body });
    expect(res.status).toBe(400);
    const err = await error(res);
    expect(err.code).toBe(code);
    const targets = [err.target, ...(err.details ?? []).map((d: { target?: string }) => d.target)];
    if (target !== undefined) expect(targets).toContain(target);
    await productUnchanged();
  });

  it("lists one detail per offending property", async () => {
    const res = await api.call("POST", "/api/Product", { body: { SKU: 1, Cost: "x", Nope: true } });
    const err = await error(res);
    expect(res.status).toBe(400);
    expect(err.code).toBe("ValidationError");
    expect(err.details.map((d: { target: string }) => d.target).sort()).toEqual(["Cost", "Nope", "SKU"]);
    for (const d of err.details) expect(d.message).toEqual(expect.any(String));
    await productUnchanged();
  });

  it("requires required properties on create", async () => {
    const err = await error(await api.call("POST", "/api/Product", { body: { Cost: 1 } }));
    expect(err).toMatchObject({ code: "ValidationError" });
    expect(JSON.stringify(err)).toContain('"target":"SKU"');
  });

  it("rejects a read-only property on create", async () => {
    const res = await api.call("POST", "/api/SalesOrder", { body: { DocNumber: "X", TotalPrice: 5 } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await error(res))).toContain('"target":"TotalPrice"');
  });

  it("accepts decimals as strings with IEEE754Compatible=true", async () => {
    const res = await api.call("PATCH", `/api/Product(${productGuid})?$select=Cost`, {
      body: { Cost: "2.5" },
      headers: {
        "Content-Type": "application/json;IEEE754Compatible=true",
        Accept: "application/json;IEEE754Compatible=true",
      },
    });
    expect(res.status).toBe(200);
    expect(dataOf(await res.json())).toEqual({ Guid: productGuid, Cost: "2.5000" });
    etag = (await api.call("PATCH", `/api/Product(${productGuid})`, { body: { Cost: 1 } })).headers.get("ETag");
  });

  it("rejects a body that is not JSON by Content-Type with 415", async () => {
    const res = await api.call("PATCH", `/api/Product(${productGuid})`, {
      body: '{"Cost":2}',
      headers: {
        "Content-Type": "text/plain",
      },
    });
    expect(res.status).toBe(415);
    await productUnchanged();
  });

  it.each(["PATCH", "POST"])("%s with a JSON Content-Type and Content-Length: 0 → 400 EmptyBody", async (verb) => {
    // what an HTTP client sends for an empty body: declared empty, so no body is read at all
    const path = verb === "PATCH" ? `/api/Product(${productGuid})` : "/api/Product";
    const res = await api.call(verb, path, {
      headers: {
        "Content-Type": "application/json",
        "Content-Length": "0",
      },
    });
    expect(res.status).toBe(400);
    expect(await error(res)).toMatchObject({ code: "EmptyBody", message: expect.stringContaining("empty") });
    await productUnchanged();
  });

  it("refuses thirty parallel writes naming a property twice, storing none of them", async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        api.call("POST", "/api/Product", { body: `{"SKU":"D-${i}","Cost":1,"SKU":"E-${i}"}` }),
      ),
    );
    for (const res of answers) expect([res.status, (await error(res)).target]).toEqual([400, "SKU"]);
    await productUnchanged();
  });

  it("rejects JSON nested deeper than the limit", async () => {
    const deep = `{"SKU":${"[".repeat(100)}${"]".repeat(100)}}`;
    const res = await api.call("PATCH", `/api/Product(${productGuid})`, { body: deep });
    expect(res.status).toBe(400);
    expect((await error(res)).code).toBe("JsonTooDeep");
  });

  it("rejects an oversize body with 413", async () => {
    const big = JSON.stringify({ SalesDescription: "x".repeat(limits.bodyLimits.maxBytes) });
    const res = await api.call("PATCH", `/api/Product(${productGuid})`, { body: big });
    expect(res.status).toBe(413);
    expect((await error(res)).code).toBe("PayloadTooLarge");
    await productUnchanged();
  });

  it("rejects an oversize chunked body without Content-Length with 413", async () => {
    const chunk = new TextEncoder().encode(`"${"x".repeat(8 * 1024)}`);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(sent === 0 ? new TextEncoder().encode('{"SalesDescription":') : chunk);
        sent++;
        if (sent > 1000) controller.close();
      },
    });
    const res = await api.call("PATCH", `/api/Product(${productGuid})`, { body: stream });
    expect(res.status).toBe(413);
    expect((await error(res)).code).toBe("PayloadTooLarge");
    // reading stopped at the limit instead of draining the whole stream
    expect(sent).toBeLessThan(1000);
    await productUnchanged();
  });
});
