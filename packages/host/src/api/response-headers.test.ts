/**
 * What every answer says of itself to browsers and caches: `nosniff` on every response, and an
 * authenticated answer is `private`, kept by no cache unless its ETag lets the client revalidate it.
 */

import { type Caller, signedInTenant } from "@bizdata/test-kit/host-app";
import { beforeAll, describe, expect, it } from "vitest";

let admin: Caller;
let product: string;

beforeAll(async () => {
  ({ admin } = await signedInTenant("headers"));
  const res = await admin.request("POST", "/api/Product", { SKU: "H-1", SalesDescription: "cached?", Cost: 1 });
  expect(res.status).toBe(201);
  product = ((await res.json()) as { Guid: string }).Guid;
});

describe("response headers", () => {
  it.each([
    ["a collection", "GET", "/api/Product?$select=SKU", undefined, 200, "private, no-store"],
    ["a $count", "GET", "/api/Product/$count", undefined, 200, "private, no-store"],
    ["an error", "GET", "/api/Product?$filter=Nope eq 1", undefined, 400, "private, no-store"],
    ["a workflow", "POST", "/api/workflow", undefined, 200, "private, no-store"],
    [
      "a batch",
      "POST",
      "/api/$batch",
      { requests: [{ id: "1", method: "GET", url: "Product" }] },
      200,
      "private, no-store",
    ],
  ])("%s is private and stored by no cache", async (_, method, path, body, status, cacheControl) => {
    const res = await admin.request(method, path, body);
    expect(res.status).toBe(status);
    expect(res.headers.get("Cache-Control")).toBe(cacheControl);
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  });

  it("a record with an ETag may be kept privately and revalidated, and its 304 says the same", async () => {
    const res = await admin.request("GET", `/api/Product(${product})?$select=SKU`);
    expect(res.status).toBe(200);
    const etag = res.headers.get("ETag");
    expect(etag).toBeTruthy();
    expect(res.headers.get("Cache-Control")).toBe("private, no-cache");
    const again = await admin.request("GET", `/api/Product(${product})?$select=SKU`, undefined, {
      "If-None-Match": etag!,
    });
    expect(again.status).toBe(304);
    expect(again.headers.get("Cache-Control")).toBe("private, no-cache");
  });

  it.each([
    ["a 401", "/api/Product"],
    ["an unknown path", "/nowhere"],
    ["the health check", "/health"],
  ])("%s carries nosniff too", async (_, path) => {
    const res = await admin.request("GET", path, undefined, { Authorization: "Bearer not-a-token" });
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  });

  it("the sign-in answer keeps its own no-store", async () => {
    const res = await admin.request("POST", "/api/auth/signin", {
      TenantId: admin.tenantId,
      Username: "x",
      Password: "y",
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  });
});
