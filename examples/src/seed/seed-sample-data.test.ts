import { adminContext, migrateService } from "@bizdata/host";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { describe, expect, it } from "vitest";
import { sampleModel } from "../domain/model.js";
import { seedSampleData } from "./seed-sample-data.js";
import { sampleTotals } from "./sizes.js";

describe("seedSampleData", () => {
  it("loads the sample data set into a tenant once, every stored entity of the model included", async () => {
    const db = await testDatabase();
    await migrateService(db, sampleModel);
    const admin = adminContext(db, sampleModel);
    const tenantId = uniqueTenant("seed");
    await admin.createTenant(tenantId);
    const sizes = { products: 40, customers: 20, orders: 30, linesPerOrder: 2, invoices: 5, journals: 5 };
    const first = await seedSampleData(admin, tenantId, sizes);
    const totals = Object.values(sampleTotals(sizes)).reduce((a, b) => a + b, 0);
    expect(first).toEqual({ seeded: true, records: totals });
    expect(await admin.countRecords(tenantId, "SalesOrder")).toBe(30);
    expect(await admin.countRecords(tenantId, "SalesOrderDetail")).toBe(60);
    // idempotent: a tenant that has sample data is left alone
    expect(await seedSampleData(admin, tenantId, sizes)).toEqual({ seeded: false, records: 0 });
  });
});
