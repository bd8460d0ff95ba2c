import { describe, expect, it } from "vitest";
import type { SampleBatch } from "./batches.js";
import { generateSampleData } from "./generate.js";
import { type SampleOptions, sampleTotals } from "./sizes.js";

const small: SampleOptions = {
  countries: 5,
  products: 30,
  customers: 12,
  priceLevels: 3,
  orders: 25,
  linesPerOrder: 3,
  invoices: 8,
  journals: 6,
};

const all = (options: SampleOptions) => [...generateSampleData(options)];
const recordsOf = (batches: SampleBatch[], entity: string) =>
  batches.filter((b) => b.entity === entity).flatMap((b) => b.records);

describe("generateSampleData", () => {
  it("gives the same records for the same seed and sizes", () => {
    expect(JSON.stringify(all({ ...small, seed: 9 }))).toBe(JSON.stringify(all({ ...small, seed: 9 })));
  });

  it("gives different records for another seed", () => {
    const guids = (seed: number) => all({ ...small, seed }).flatMap((b) => b.records.map((r) => r.Guid));
    expect(guids(2)).not.toEqual(guids(1));
  });

  it("yields as many records per entity as sampleTotals says, in that order", () => {
    const options = { ...small, products: 1200, orders: 450, linesPerOrder: 4 };
    const counts = new Map<string, number>();
    for (const { entity, records } of generateSampleData(options)) {
      counts.set(entity, (counts.get(entity) ?? 0) + records.length);
    }
    const totals = sampleTotals(options);
    expect(Object.fromEntries(counts)).toEqual(totals);
    expect([...counts.keys()]).toEqual(Object.keys(totals));
    expect(totals).toMatchObject({ Product: 1200, SalesOrder: 450, SalesOrderDetail: 1800, Contact: 12 });
  });

  it("keeps batches between 1 and 1000 records", () => {
    const sizes = all({ ...small, products: 2500 }).map((b) => b.records.length);
    expect(Math.max(...sizes)).toBe(1000);
    expect(Math.min(...sizes)).toBeGreaterThan(0);
  });

  it("follows each owner batch with its items", () => {
    const order = all({ ...small, products: 1500 })
      .filter((b) => b.entity.startsWith("Product"))
      .map((b) => `${b.entity}:${b.records.length}`);
    expect(order).toEqual(["Product:1000", "ProductUom:1000", "ProductUom:1000", "Product:500", "ProductUom:1000"]);
  });

  it("totals each order from its lines", () => {
    const batches = all(small);
    const lineTotals = new Map<unknown, number>();
    for (const line of recordsOf(batches, "SalesOrderDetail")) {
      const amount = (line.Quantity as number) * (line.UnitPrice as number);
      lineTotals.set(line.SalesOrder, (lineTotals.get(line.SalesOrder) ?? 0) + amount);
    }
    for (const order of recordsOf(batches, "SalesOrder")) {
      expect(order.TotalPrice).toBeCloseTo(lineTotals.get(order.Guid) ?? 0, 4);
    }
  });

  it("numbers documents and keys readably", () => {
    const batches = all(small);
    expect(recordsOf(batches, "Product")[0]?.SKU).toBe("SKU-000001");
    expect(recordsOf(batches, "Customer")[11]?.Id).toBe("C-00012");
    expect(recordsOf(batches, "SalesOrder")[24]?.DocNumber).toBe("SO-000025");
    expect(recordsOf(batches, "Country").map((c) => c.Code)).toEqual(["US", "CA", "MX", "GB", "IE"]);
  });

  it("leaves optional references empty when their target has no records", () => {
    const batches = all({ ...small, countries: 0, customers: 0, priceLevels: 0 });
    expect(recordsOf(batches, "SalesOrder").every((o) => o.SellToCustomer === null && o.PriceLevel === null)).toBe(
      true,
    );
  });

  it("refuses sizes it cannot honour, at the call", () => {
    expect(() => generateSampleData({ countries: 21 })).toThrow(RangeError);
    expect(() => generateSampleData({ orders: -1 })).toThrow(RangeError);
    expect(() => generateSampleData({ journals: 1.5 })).toThrow(RangeError);
    expect(() => generateSampleData({ products: 0 })).toThrow(/at least one product/);
    expect(() => generateSampleData({ products: 0, orders: 0, invoices: 0 })).not.toThrow();
    expect(() => generateSampleData({ seed: 0.5 })).toThrow(RangeError);
  });

  // how fast is pnpm bench's business (style: speed is measured, never asserted by a timed test)
  it("generates the default sizes in full", () => {
    let records = 0;
    for (const batch of generateSampleData()) records += batch.records.length;
    expect(records).toBe(Object.values(sampleTotals()).reduce((a, b) => a + b));
  });
});
