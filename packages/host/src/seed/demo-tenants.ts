/**
 * The demo tenants the conventions list: `demo` with every sample feature, `demo2` with none,
 * each with `demo`/`demo` (full rights) and `viewer`/`viewer` (read only), plus the sample data.
 */
import type { Database, Model } from "@bizdata/core";
import { type SampleOptions, sampleFeatures } from "@bizdata/examples";
import { createTenant, setFeature, setUser, tenantExists } from "../tenants/tenant-admin.js";
import { type SeedProgress, seedSampleData } from "./seed-sample-data.js";

export const demoTenants = [
  { id: "demo", name: "Demo", features: sampleFeatures },
  { id: "demo2", name: "Demo (no optional features)", features: [] as readonly string[] },
] as const;

export const demoUsers = [
  { username: "demo", password: "demo", roles: ["admin"] },
  { username: "viewer", password: "viewer", roles: ["reader"] },
] as const;

/** Creates whatever of the demo set is missing; leaves existing tenants, users and data alone. */
export async function seedDemo(
  db: Database,
  model: Model,
  options: SampleOptions,
  progress?: (tenantId: string) => SeedProgress | undefined,
): Promise<void> {
  for (const tenant of demoTenants) {
    const isNew = !(await tenantExists(db, tenant.id));
    if (isNew) {
      await createTenant(db, tenant.id, tenant.name);
      for (const user of demoUsers) await setUser(db, tenant.id, user.username, user.password, user.roles);
      for (const feature of tenant.features) await setFeature(db, tenant.id, feature, true);
    }
    await seedSampleData(db, model, tenant.id, options, progress?.(tenant.id));
  }
}

/** whether the database has no tenant yet (the embedded start-up seeds only then) */
export async function isEmpty(db: Database): Promise<boolean> {
  const [row] = await db.query<{ n: number }>({ sql: "SELECT count(*)::int AS n FROM bizdata_tenant", params: [] });
  return (row?.n ?? 0) === 0;
}
