/**
 * The planner's cache by URL shape: a repeated shape is the same prepared read, a keyed read
 * shares one entry whatever the Guid, and `cacheSize` bounds what is kept (0: nothing).
 */
import { defineModel, entity, text } from "@bizdata/core";
import { describe, expect, it } from "vitest";
import { ReadPlanner } from "./read-planner.js";

const Product = entity("Product", { naturalKey: "SKU", fields: { SKU: text({ required: true }) } });
const model = defineModel([Product]);

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
});
