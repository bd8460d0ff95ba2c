/**
 * Loads the sample data set into one tenant with the host's bulk insert (one statement per batch
 * of up to a thousand records). Idempotent: a tenant that already holds sample products is left
 * as it is.
 */
import type { AdminContext } from "@bizdata/host";
import { generateSampleData } from "./generate.js";
import { type SampleOptions, sampleTotals } from "./sizes.js";

export async function seedSampleData(
  admin: AdminContext,
  tenantId: string,
  options: SampleOptions,
): Promise<{ seeded: boolean; records: number }> {
  if ((await admin.countRecords(tenantId, "Product")) > 0) return { seeded: false, records: 0 };
  const total = Object.values(sampleTotals(options)).reduce((a, b) => a + b, 0);
  // the generator's references are consistent by construction (and tested)
  const records = await admin.bulkInsert(tenantId, generateSampleData(options), {
    trustedReferences: true,
    total,
    label: `seeding ${tenantId}`,
  });
  return { seeded: true, records };
}
