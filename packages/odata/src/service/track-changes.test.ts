import { migrate, openDatabase } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import { changesSettled } from "@bizdata/test-kit/change-log";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { serviceHarness, serviceTenant } from "@bizdata/test-kit/odata-harness";
import { describe, expect, it } from "vitest";
import { encodeToken, queryDigest } from "./delta-token.js";

type Payload = {
  "@odata.context"?: string;
  "@odata.deltaLink"?: string;
  "@odata.nextLink"?: string;
  value: Record<string, unknown>[];
};

const TRACK = { Prefer: "odata.track-changes" };

/**
 * Before a tracked read or a delta's: what the test committed is in the log's reach. Another
 * worker's open transaction holds the watermark back, so a tracked read's link would start before
 * the test's own writes and its delta would have them again.
 */
const settled = async (url: string, headers: Record<string, string> = {}) => {
  if (/deltatoken|skiptoken/i.test(url) || headers.Prefer === TRACK.Prefer) await changesSettled(await testDatabase());
};

/** the tenant's service and a GET that answers the JSON of a 200 */
async function api(label = "tc") {
  const tenant = await serviceTenant(label);
  const get = async (url: string, headers: Record<string, string> = {}): Promise<Payload> => {
    await settled(url, headers);
    const res = await tenant.call("GET", url, { headers });
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    // the records' ETags say nothing here
    return JSON.parse(await res.text(), (key, value) => (key === "@odata.etag" ? undefined : value)) as Payload;
  };
  const post = async (url: string, body: unknown) => {
    const res = await tenant.call("POST", url, { body });
    if (res.status !== 201) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { Guid: string }).Guid;
  };
  return { ...tenant, get, post };
}

/** a link as the service wrote it, relative to the harness's origin */
const path = (link: string | undefined) => {
  if (link === undefined) throw new Error("no link");
  return link;
};

describe("change tracking", () => {
  it("answers a tracked read with a delta link whose delta has the changes since, removals included", async () => {
    const t = await api();
    const kept = await t.post("/api/Product", { SKU: "K", Cost: 1 });
    const gone = await t.post("/api/Product", { SKU: "G", Cost: 1 });
    const res = await t.call("GET", "/api/Product?$select=SKU,Cost", { headers: TRACK });
    expect(res.headers.get("preference-applied")).toBe("odata.track-changes");
    const first = (await res.json()) as Payload;
    expect(first.value.map((p) => p.SKU).sort()).toEqual(["G", "K"]);
    expect(first["@odata.nextLink"]).toBeUndefined();
    // nothing changed yet
    const quiet = await t.get(path(first["@odata.deltaLink"]));
    expect(quiet.value).toEqual([]);
    expect(quiet["@odata.context"]).toBe("/api/$metadata#Product(SKU,Cost)/$delta");
    const added = await t.post("/api/Product", { SKU: "N", Cost: 2 });
    expect((await t.call("PATCH", `/api/Product(${kept})`, { body: { Cost: 3 } })).status).toBe(200);
    expect((await t.call("DELETE", `/api/Product(${gone})`)).status).toBe(204);
    const delta = await t.get(path(first["@odata.deltaLink"]));
    expect(delta.value).toEqual(
      expect.arrayContaining([
        { Guid: kept, SKU: "K", Cost: 3 },
        { Guid: added, SKU: "N", Cost: 2 },
        { "@removed": { reason: "deleted" }, "@id": `Product(${gone})`, Guid: gone },
      ]),
    );
    expect(delta.value).toHaveLength(3);
    // and from its own delta link on, nothing again
    expect((await t.get(path(delta["@odata.deltaLink"]))).value).toEqual([]);
  });

  it("applies the link's $filter: a record that left the filter is removed, one that entered it is there", async () => {
    const t = await api();
    const cheap = await t.post("/api/Product", { SKU: "C", Cost: 1 });
    const dear = await t.post("/api/Product", { SKU: "D", Cost: 100 });
    const first = await t.get("/api/Product?$filter=Cost lt 10&$select=SKU", TRACK);
    expect(first.value).toEqual([{ Guid: cheap, SKU: "C" }]);
    await t.call("PATCH", `/api/Product(${cheap})`, { body: { Cost: 50 } });
    await t.call("PATCH", `/api/Product(${dear})`, { body: { Cost: 5 } });
    const delta = await t.get(path(first["@odata.deltaLink"]));
    expect(delta.value).toEqual(
      expect.arrayContaining([
        { "@removed": { reason: "changed" }, "@id": `Product(${cheap})`, Guid: cheap },
        { Guid: dear, SKU: "D" },
      ]),
    );
  });

  it("follows a delta link whose $search and $expand hold a %3B and a %25, read back as sent", async () => {
    const t = await api();
    const kept = await t.post("/api/Product", { SKU: "K", SalesDescription: "steel; 100%" });
    const query = "$select=SKU&$search=steel%3B&$expand=Uoms($filter=Name%20eq%20'a%3Bb%25'%3B$select=Name)";
    const first = await t.get(`/api/Product?${query}`, TRACK);
    expect(first.value).toEqual([{ Guid: kept, SKU: "K", Uoms: [] }]);
    await t.call("PATCH", `/api/Product(${kept})`, { body: { Cost: 2 } });
    // the link's options digest as the read's did: the same query, not "another query"
    expect((await t.get(path(first["@odata.deltaLink"]))).value).toEqual([{ Guid: kept, SKU: "K", Uoms: [] }]);
  });

  it("counts a change of an expanded owned item as one of its owner", async () => {
    const t = await api();
    await t.post("/api/Product", { SKU: "P" });
    await t.post("/api/Customer", { Id: "C1" });
    const order = await t.post("/api/SalesOrder", {
      DocNumber: "SO-1",
      SellToCustomer: "C1",
      Details: [{ Product: "P", Quantity: 1 }],
    });
    const plain = await t.get("/api/SalesOrder?$select=DocNumber", TRACK);
    const expanded = await t.get("/api/SalesOrder?$select=DocNumber&$expand=Details($select=Quantity)", TRACK);
    const line = (expanded.value[0]!.Details as { Guid: string }[])[0]!.Guid;
    await t.call("PATCH", `/api/SalesOrderDetail(${line})`, { body: { Quantity: 7 } });
    expect((await t.get(path(plain["@odata.deltaLink"]))).value).toEqual([]);
    expect((await t.get(path(expanded["@odata.deltaLink"]))).value).toEqual([
      { Guid: order, DocNumber: "SO-1", Details: [{ Guid: line, Quantity: 7 }] },
    ]);
  });

  it("pages a long delta with next links, each change once, then a delta link", async () => {
    // pages of 5 changes
    const { tenant } = await serviceHarness({
      queryLimits: { ...(await import("../limits.js")).defaultQueryLimits, maxPageSize: 5 },
    });
    const t = tenant(uniqueTenant("tc"));
    const json = async (url: string, headers: Record<string, string> = {}) => {
      await settled(url, headers);
      return (await (await t.call("GET", url, { headers })).json()) as Payload;
    };
    for (let i = 0; i < 7; i++) await t.call("POST", "/api/Product", { body: { SKU: `S${i}` } });
    // the tracked read itself pages: its delta link comes on its last page, with the first page's watermark
    let page = await json("/api/Product?$select=SKU", TRACK);
    const read: unknown[] = [...page.value];
    while (page["@odata.nextLink"] !== undefined) {
      expect(page["@odata.deltaLink"]).toBeUndefined();
      page = await json(page["@odata.nextLink"]);
      read.push(...page.value);
    }
    expect(read).toHaveLength(7);
    const deltaLink = page["@odata.deltaLink"]!;
    for (let i = 0; i < 12; i++) await t.call("POST", "/api/Product", { body: { SKU: `N${i}` } });
    const seen: string[] = [];
    let delta = await json(deltaLink);
    let pages = 1;
    while (delta["@odata.nextLink"] !== undefined) {
      seen.push(...delta.value.map((p) => p.SKU as string));
      delta = await json(delta["@odata.nextLink"]);
      pages++;
    }
    seen.push(...delta.value.map((p) => p.SKU as string));
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `N${i}`).sort());
    expect(delta["@odata.deltaLink"]).toBeDefined();
  });

  it("refuses a malformed token, one of another query, and one older than the retention", async () => {
    const t = await api();
    const first = await t.get("/api/Product?$select=SKU", TRACK);
    const link = new URL(path(first["@odata.deltaLink"]), "http://x");
    const token = link.searchParams.get("$deltatoken")!;
    const status = async (url: string) => {
      const res = await t.call("GET", url);
      return { status: res.status, code: ((await res.json()) as { error: { code: string } }).error.code };
    };
    const stray = [`${token}A`, `${token}AA`, `${token}AAA`];
    for (const bad of ["x", "!!", "", Buffer.from("d.1.2").toString("base64url"), ...stray])
      expect(await status(`/api/Product?$select=SKU&$deltatoken=${bad}`)).toEqual({
        status: 400,
        code: "InvalidDeltaToken",
      });
    expect(await status(`/api/Product?$select=SKU,Cost&$deltatoken=${token}`)).toEqual({
      status: 400,
      code: "InvalidDeltaToken",
    });
    const old = encodeToken({
      kind: "delta",
      from: "1",
      began: Date.now() - 31 * 24 * 3600_000,
      query: queryDigest("Product", new URLSearchParams("$select=SKU")),
    });
    expect(await status(`/api/Product?$select=SKU&$deltatoken=${old}`)).toEqual({
      status: 410,
      code: "DeltaTokenExpired",
    });
  });

  it("answers a read it cannot track as usual, without a delta link", async () => {
    const t = await api();
    await t.post("/api/Product", { SKU: "A" });
    for (const url of ["/api/Product?$top=1", "/api/Product/$count"]) {
      const res = await t.call("GET", url, { headers: TRACK });
      expect(res.status).toBe(200);
      expect(res.headers.get("preference-applied")).toBeNull();
      expect(await res.text()).not.toContain("deltaLink");
    }
  });

  it("has each of 30 creates sent at once in the delta once, and answers 30 reads of one link alike", async () => {
    const t = await api();
    const first = await t.get("/api/Product?$select=SKU", TRACK);
    const created = await Promise.all(Array.from({ length: 30 }, (_, i) => t.post("/api/Product", { SKU: `X${i}` })));
    const deltas = await Promise.all(Array.from({ length: 30 }, () => t.get(path(first["@odata.deltaLink"]))));
    for (const delta of deltas) {
      expect(delta.value.map((p) => p.Guid).sort()).toEqual([...created].sort());
      // the next delta link starts where this one ended: nothing since
      expect((await t.get(path(delta["@odata.deltaLink"]))).value).toEqual([]);
    }
  });

  it("never shows another tenant's changes", async () => {
    const a = await api();
    const b = await api();
    const first = await b.get("/api/Product?$select=SKU", TRACK);
    await a.post("/api/Product", { SKU: "A-only" });
    expect((await b.get(path(first["@odata.deltaLink"]))).value).toEqual([]);
  });

  it("tracks nothing without a change log: no delta link, and a link from before answers 410", async () => {
    // a database of its own that writes no change log (CHANGE_LOG=off)
    const db = await openDatabase({ url: process.env.DATABASE_URL || "memory://", changeLog: false });
    try {
      await migrate(db, sampleModel);
      const { tenant } = await serviceHarness({ db });
      const t = tenant(uniqueTenant("tc-off"));
      await t.call("POST", "/api/Product", { body: { SKU: "A" } });
      const res = await t.call("GET", "/api/Product?$select=SKU", { headers: TRACK });
      expect(res.status).toBe(200);
      expect(res.headers.get("preference-applied")).toBeNull();
      expect(await res.text()).not.toContain("deltaLink");
      const earlier = encodeToken({
        kind: "delta",
        from: "1",
        began: Date.now(),
        query: queryDigest("Product", new URLSearchParams("$select=SKU")),
      });
      const refused = await t.call("GET", `/api/Product?$select=SKU&$deltatoken=${earlier}`);
      expect(refused.status).toBe(410);
      expect(await refused.json()).toMatchObject({
        error: { code: "DeltaTokenExpired", message: expect.stringContaining("CHANGE_LOG=off") },
      });
    } finally {
      await db.close();
    }
  });
});
