/**
 * The demo set of the reference host (api-conventions: Demo data): tenant `demo` with every
 * sample feature, `demo2` with none, each with `demo`/`demo` (full rights) and `viewer`/`viewer`
 * (read only), plus the sample data.
 */
import type { AdminContext, DemoSignIn } from "@bizdata/host";
import { sampleFeatures } from "../domain/features.js";
import { seedSampleData } from "../seed/seed-sample-data.js";
import type { SampleOptions } from "../seed/sizes.js";

export const demoTenants = [
  { id: "demo", name: "Demo", features: sampleFeatures },
  { id: "demo2", name: "Demo (no optional features)", features: [] as readonly string[] },
] as const;

export const demoUsers = [
  { username: "demo", password: "demo", roles: ["admin"] },
  { username: "viewer", password: "viewer", roles: ["reader"] },
] as const;

/** what the host prints at an embedded start */
export const demoSignIns: readonly DemoSignIn[] = demoTenants.flatMap((t) =>
  demoUsers.map((u) => ({ tenant: t.id, username: u.username, password: u.password })),
);

/** Creates whatever of the demo set is missing; leaves existing tenants, users and data alone. */
export async function seedDemo(admin: AdminContext, options: SampleOptions): Promise<void> {
  for (const tenant of demoTenants) {
    if (await admin.createTenant(tenant.id, tenant.name)) {
      for (const user of demoUsers) await admin.setUser(tenant.id, user.username, user.password, user.roles);
      for (const feature of tenant.features) await admin.setFeature(tenant.id, feature, true);
    }
    await seedSampleData(admin, tenant.id, options);
  }
}
