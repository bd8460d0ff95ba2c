/**
 * The planner's cache by URL shape: a repeated shape is the same prepared read, a keyed read
 * shares one entry whatever the Guid, and `cacheSize` bounds what is kept (0: nothing); and its
 * cache of bound resource paths without a key.
 */
import { collection, defineModel, entity, reference, text } from "@bizdata/core";
import { describe, expect, it } from "vitest";
import { ReadPlanner, resolveResource } from "./read-planner.js";

const Part = entity("Part", { naturalKey: "Guid", fields: { Product: reference("Product", { required: true }) } });
const Product = entity("Product", {
  naturalKey: "SKU",
  fields: { SKU: text({ required: true }), Parts: collection(Part, { inverse: "Product" }) },
});
const model = defineModel([Part, Product]);

const plan = (planner: ReadPlanner, path: string, search = "$select=SKU") => {
  const read = planner.plan({ path, search: new URLSearchParams(search), ieee754Compatible: false });
  if (read.kind === "method") throw new Error("not a read");
  return read;
};

describe("ReadPlanner", () => {
  it("reuses the prepared read of a shape it has seen", () => {
    const planner = new ReadPlanner(model);
    expect(plan(planner, "Product").prepared).toBe(plan(planner, "Product").prepared);
    const a = plan(planner, "Product(6f1d2b3c-0000-4000-8000-000000000001)");
    const b = plan(planner, "Product(6F1D2B3C-0000-4000-8000-000000000002)");
    expect(b.prepared).toBe(a.prepared);
    expect(b).toMatchObject({ kind: "entity", key: "6f1d2b3c-0000-4000-8000-000000000002" });
  });

  it("shares one entry for a key written (<guid>) or (Guid=<guid>), and for navigation from any record", () => {
    const planner = new ReadPlanner(model);
    const a = plan(planner, "Product(6f1d2b3c-0000-4000-8000-000000000001)");
    const b = plan(planner, "Product(Guid=6f1d2b3c-0000-4000-8000-000000000002)");
    expect(b.prepared).toBe(a.prepared);
    expect(b.key).toBe("6f1d2b3c-0000-4000-8000-000000000002");
    const c = plan(planner, "Product(6f1d2b3c-0000-4000-8000-000000000001)/Parts", "");
    const d = plan(planner, "Product(Guid=6f1d2b3c-0000-4000-8000-000000000003)/Parts", "");
    expect(d.prepared).toBe(c.prepared);
    expect(d).toMatchObject({ kind: "collection", key: "6f1d2b3c-0000-4000-8000-000000000003" });
  });

  it("shares one entry for an owned item under its owner whatever the two keys, and puts both back", () => {
    const [k1, k2, k3, k4] = [1, 2, 3, 4].map((n) => `6f1d2b3c-0000-4000-8000-00000000000${n}`) as [
      string,
      string,
      string,
      string,
    ];
    const planner = new ReadPlanner(model);
    const a = plan(planner, `Product(${k1})/Parts(${k2})`, "");
    const b = plan(planner, `Product(Guid=${k3.toUpperCase()})/Parts(Guid=${k4})`, "");
    expect(b.prepared).toBe(a.prepared);
    expect(b.owners![0]!.prepared).toBe(a.owners![0]!.prepared);
    expect(a).toMatchObject({
      kind: "entity",
      key: k2,
      owners: [{ root: "Product", path: "Parts", key: k1, item: k2 }],
    });
    expect(b).toMatchObject({ kind: "entity", key: k4, owners: [{ key: k3, item: k4 }] });
    // the same shape with one key fewer is no owned item
    expect(() => plan(planner, `Product(${k1})/Parts()`, "")).toThrow("Part is addressed by one key");
    expect(() => plan(planner, `Product()/Parts(${k2})`, "")).toThrow("Product is addressed by one key");
  });

  it("never serves a keyed entry to a path without a key", () => {
    const planner = new ReadPlanner(model);
    plan(planner, "Product(6f1d2b3c-0000-4000-8000-000000000001)", "");
    expect(() => plan(planner, "Product()", "")).toThrow("Product is addressed by one key");
  });

  it("keeps at most cacheSize shapes, dropping the oldest", () => {
    const planner = new ReadPlanner(model, { cacheSize: 1 });
    const first = plan(planner, "Product", "$top=1").prepared;
    expect(plan(planner, "Product", "$top=1").prepared).toBe(first);
    plan(planner, "Product", "$top=2");
    expect(plan(planner, "Product", "$top=1").prepared).not.toBe(first);
  });

  it("keeps nothing with cacheSize 0", () => {
    const planner = new ReadPlanner(model, { cacheSize: 0 });
    expect(plan(planner, "Product").prepared).not.toBe(plan(planner, "Product").prepared);
  });

  it("binds a key-free resource path once, and a keyed one each time with its own key", () => {
    const planner = new ReadPlanner(model);
    expect(planner.resolve("Product")).toBe(planner.resolve("Product"));
    expect(planner.resolve("Product")).toEqual(resolveResource(model, "Product"));
    const a = planner.resolve("Product(6f1d2b3c-0000-4000-8000-000000000001)/Parts");
    const b = planner.resolve("Product(6f1d2b3c-0000-4000-8000-000000000002)/Parts");
    expect([a, b]).toEqual([
      resolveResource(model, "Product(6f1d2b3c-0000-4000-8000-000000000001)/Parts"),
      resolveResource(model, "Product(6f1d2b3c-0000-4000-8000-000000000002)/Parts"),
    ]);
    expect(a).not.toEqual(b);
    // a path that does not resolve is refused every time, and keeps nothing
    expect(() => planner.resolve("Nothing")).toThrow();
    expect(() => planner.resolve("Nothing")).toThrow();
    const keepsNothing = new ReadPlanner(model, { cacheSize: 0 });
    expect(keepsNothing.resolve("Product")).not.toBe(keepsNothing.resolve("Product"));
  });
});
