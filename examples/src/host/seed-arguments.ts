/**
 * The reference host's `bizdata seed` options: the sample sizes, the generator's seed, and
 * `--tenant ID` for sample data alone into an existing tenant.
 */
import { parseArgs } from "node:util";
import type { SampleOptions } from "../seed/sizes.js";

export const seedUsage =
  "bizdata seed [--tenant ID] [--products N] [--customers N] [--orders N] [--lines N] [--invoices N] [--journals N] [--seed N]";

/** option → the size it sets */
const sizeOptions = {
  products: "products",
  customers: "customers",
  orders: "orders",
  lines: "linesPerOrder",
  invoices: "invoices",
  journals: "journals",
  seed: "seed",
} as const;

export function parseSeedArguments(args: readonly string[]): { tenant: string | undefined; sizes: SampleOptions } {
  const options = Object.fromEntries(
    ["tenant", ...Object.keys(sizeOptions)].map((name) => [name, { type: "string" as const }]),
  );
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: [...args], options }));
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : err}\nusage: ${seedUsage}`);
  }
  const sizes: Record<string, number> = {};
  for (const [option, size] of Object.entries(sizeOptions)) {
    const value = values[option];
    if (value === undefined) continue;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${option} must be a non-negative integer, not "${value}".`);
    sizes[size] = n;
  }
  return { tenant: values.tenant as string | undefined, sizes };
}
