import { migrate } from "@bizdata/core";
import { sampleModel, sampleTotals } from "@bizdata/examples";
import { describe, expect, it } from "vitest";
import { testDatabase, uniqueTenant } from "../../../../test/database.js";
import { createTenant } from "../tenants/tenant-admin.js";
import { seedSampleData } from "./seed-sample-data.js";

describe("seedSampleData", () => {
  it("loads the sample data set into a tenant once, every stored entity of the model included", async () => {
    const db = await testDatabase();
    await migrate(db, sampleModel);
    const tenantId = uniqueTenant("seed");
    await createTenant(db, tenantId);
    const sizes = { products: 40, customers: 20, orders: 30, linesPerOrder: 2, invoices: 5, journals: 5 };
    const first = await seedSampleData(db, sampleModel, tenantId, sizes);
    const totals = Object.values(sampleTotals(sizes)).reduce((a, b) => a + b, 0);
    expect(first).toEqual({ seeded: true, records: totals });
    const [orders] = await db.query<{ n: number }>({
      sql: "SELECT count(*)::int AS n FROM sales_order WHERE tenant_id = $1",
      params: [tenantId],
    });
    expect(orders?.n).toBe(30);
    // idempotent: a tenant that has sample data is left alone
    expect(await seedSampleData(db, sampleModel, tenantId, sizes)).toEqual({ seeded: false, records: 0 });
  });
});
