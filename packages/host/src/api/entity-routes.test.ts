/**
 * What the host adds to the OData service's answers on its entity routes (the service's own
 * behaviour is tested in packages/odata): the OData-Version of every answer, a HEAD answered
 * without its content, a verb they do not route, and the caller's role, which allows reads and
 * Read methods and refuses writes and Modify methods to a reader.
 */
import { randomUUID } from "node:crypto";
import { type Caller, signedInTenant } from "@bizdata/test-kit/host-app";
import { beforeAll, describe, expect, it } from "vitest";

let admin: Caller;
let reader: Caller;
let product: string;

beforeAll(async () => {
  ({ admin, reader } = await signedInTenant("routes"));
  const res = await admin.request("POST", "/api/Product", { SKU: "E-1", Cost: 1.5 });
  expect(res.status).toBe(201);
  product = ((await res.json()) as { Guid: string }).Guid;
});

describe("the entity routes", () => {
  it.each([
    ["a collection", "/api/Product?$top=3", 200],
    ["an unknown property", "/api/Product?$select=sku", 400],
    ["a syntax error", "/api/Product?$top=-1", 400],
  ])("answer %s with OData-Version 4.01", async (_, path, status) => {
    const res = await admin.request("GET", path);
    expect(res.status).toBe(status);
    expect(res.headers.get("OData-Version")).toBe("4.01");
  });

  it("answer a HEAD of a collection, a record, a count and a Read method like GET, with no body", async () => {
    for (const path of [
      "/api/Product?$top=2",
      `/api/Product(${product})`,
      "/api/Product/$count",
      `/api/Product(${product})/GetDefaultMarkup()`,
    ]) {
      const get = await admin.request("GET", path);
      const head = await admin.request("HEAD", path);
      expect(head.status, path).toBe(get.status);
      expect(get.status, path).toBeLessThan(300);
      expect(head.headers.get("Content-Type"), path).toBe(get.headers.get("Content-Type"));
      expect(await head.text(), path).toBe("");
    }
  });

  it("forbid writes to a read-only user (403) but let it read", async () => {
    expect((await reader.request("GET", "/api/Product")).status).toBe(200);
    const res = await reader.request("POST", "/api/Product", { SKU: "R-1" });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("Forbidden");
    expect((await reader.request("DELETE", "/api/Product(6f1c2d3e-4b5a-4c6d-8e9f-0a1b2c3d4e5f)")).status).toBe(403);
  });

  it("answer a verb they do not route (PUT) with 404 and an error body", async () => {
    const res = await admin.request("PUT", "/api/Product", {});
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toEqual(expect.any(String));
  });

  it("let a reader call Read methods but not Modify methods", async () => {
    expect((await reader.request("GET", `/api/Product(${product})/GetDefaultMarkup()`)).status).toBe(200);
    expect((await reader.request("POST", `/api/Journal(${randomUUID()})/Post`)).status).toBe(403);
  });
});
