#!/usr/bin/env -S node --import tsx
/**
 * `bizdata <command>`: serve, migrate, seed, and tenant/user/feature administration, all against
 * the database that `DATABASE_URL` (or `DATA_DIR`) names.
 */
import { parseArgs } from "node:util";
import { describeDatabase, migrate, openDatabase } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import { rotateSigningKey } from "./auth/signing-keys.js";
import { loadConfig } from "./config.js";
import { consoleProgress } from "./seed/console-progress.js";
import { seedDemo } from "./seed/demo-tenants.js";
import { seedSampleData } from "./seed/seed-sample-data.js";
import { startHost } from "./server.js";
import { createTenant, setFeature, setUser, tenantFeatures } from "./tenants/tenant-admin.js";

const usage = `usage: bizdata <command>
  serve                                         start the host (HOST, PORT, DATABASE_URL, DATA_DIR)
  migrate                                       create or upgrade the schema
  seed [--tenant ID] [--products N] [--customers N] [--orders N] [--lines N] [--invoices N] [--journals N] [--seed N]
                                                demo tenants and users plus sample data (idempotent);
                                                with --tenant only sample data into that tenant
  tenant create ID [--name NAME]
  user create TENANT USERNAME --password PASSWORD [--role admin|reader]
  feature enable|disable|list TENANT [FEATURE]
  keys rotate                                   a new signing key; tokens of the older ones stay valid until they expire`;

async function withDatabase<T>(fn: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const db = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrate(db, sampleModel);
    return await fn(db);
  } finally {
    await db.close();
  }
}

const count = (value: string | undefined, name: string): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer, not "${value}".`);
  return n;
};

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      tenant: { type: "string" },
      name: { type: "string" },
      password: { type: "string" },
      role: { type: "string" },
      products: { type: "string" },
      customers: { type: "string" },
      orders: { type: "string" },
      lines: { type: "string" },
      invoices: { type: "string" },
      journals: { type: "string" },
      seed: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, sub, ...rest] = positionals;
  if (values.help || command === undefined) {
    console.log(usage);
    return;
  }
  switch (command) {
    case "serve": {
      const host = await startHost(loadConfig());
      const stop = async () => {
        await host.close();
        process.exit(0);
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      return;
    }
    case "migrate":
      await withDatabase(async () => {
        const config = loadConfig();
        console.log(
          `schema is up to date in ${describeDatabase({ url: config.databaseUrl, dataDir: config.dataDir })}`,
        );
      });
      return;
    case "seed": {
      const sizes: Record<string, number> = {};
      for (const [option, size] of [
        ["products", "products"],
        ["customers", "customers"],
        ["orders", "orders"],
        ["lines", "linesPerOrder"],
        ["invoices", "invoices"],
        ["journals", "journals"],
        ["seed", "seed"],
      ] as const) {
        const n = count(values[option], option);
        if (n !== undefined) sizes[size] = n;
      }
      await withDatabase(async (db) => {
        const started = Date.now();
        if (values.tenant) {
          const result = await seedSampleData(
            db,
            sampleModel,
            values.tenant,
            sizes,
            consoleProgress(`seeding ${values.tenant}`),
          );
          console.log(
            result.seeded ? `seeded ${result.records} records` : `tenant ${values.tenant} already has sample data`,
          );
        } else {
          await seedDemo(db, sampleModel, sizes, (tenant) => consoleProgress(`seeding ${tenant}`));
        }
        console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      });
      return;
    }
    case "tenant":
      if (sub !== "create" || rest[0] === undefined) break;
      await withDatabase(async (db) => {
        const created = await createTenant(db, rest[0]!, values.name);
        console.log(created ? `tenant ${rest[0]} created` : `tenant ${rest[0]} already exists`);
      });
      return;
    case "user": {
      if (sub !== "create" || rest.length < 2) break;
      const password = values.password ?? process.env.BIZDATA_PASSWORD;
      if (!password) throw new Error("Give the password with --password or BIZDATA_PASSWORD.");
      const role = values.role ?? "admin";
      if (role !== "admin" && role !== "reader") throw new Error(`--role must be admin or reader, not "${role}".`);
      await withDatabase(async (db) => {
        await setUser(db, rest[0]!, rest[1]!, password, [role]);
        console.log(`user ${rest[1]} in tenant ${rest[0]} saved with role ${role}`);
      });
      return;
    }
    case "keys":
      if (sub !== "rotate") break;
      await withDatabase(async (db) => {
        console.log(`signing key ${await rotateSigningKey(db)} stored; hosts sign with it after their next start`);
      });
      return;
    case "feature":
      if (!sub || rest[0] === undefined) break;
      await withDatabase(async (db) => {
        if (sub === "list") {
          console.log((await tenantFeatures(db, rest[0]!)).join("\n"));
          return;
        }
        if ((sub !== "enable" && sub !== "disable") || rest[1] === undefined) throw new Error(usage);
        await setFeature(db, rest[0]!, rest[1]!, sub === "enable");
        console.log(`feature ${rest[1]} ${sub}d for tenant ${rest[0]}`);
      });
      return;
  }
  throw new Error(`unknown command: ${positionals.join(" ")}\n${usage}`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
