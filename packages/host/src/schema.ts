/**
 * The schema a host serves: the model's tables with core's, the workflow package's and the
 * host's own (users, tokens, keys, throttling, imports, rate counts, webhooks). `bizdata migrate` and the host's start run this.
 */
import { type Database, type MigrateOptions, type MigrationReport, type Model, migrate } from "@bizdata/core";
import { workflowTables } from "@bizdata/workflow";
import { authTables } from "./auth/auth-tables.js";
import { importTables } from "./import/import-tables.js";
import { rateTables } from "./limits/rate-counts.js";
import { webhookTables } from "./webhooks/webhook-tables.js";

/** the tables of the packages the host uses, besides the model's and core's */
export const serviceTables = [...workflowTables, ...authTables, ...importTables, ...rateTables, ...webhookTables];

/** Creates or upgrades everything the host needs for `model`; safe to run any number of times, concurrently. */
export const migrateService = (db: Database, model: Model, options?: MigrateOptions): Promise<MigrationReport> =>
  migrate(db, model, serviceTables, options);

/** what an operator should hear of a migration's report: the tenant columns it could not, or would not, convert */
export function migrationAdvice({ largeTablesLeft: left, conversionsBlocked: blocked }: MigrationReport): string[] {
  return [
    ...blocked.map(({ table, usedBy }) => {
      const [uses, them] = usedBy.length === 1 ? ["uses", "it"] : ["use", "them"];
      return `${table} keeps its tenant column in the database's collation, since ${usedBy.join(" and ")} of your own ${uses} it: drop ${them}, run \`bizdata migrate\`, and make ${them} again.`;
    }),
    ...(left.length === 0
      ? []
      : [
          `${left.length === 1 ? "1 large table keeps its" : `${left.length} large tables keep their`} tenant column in the database's collation (${left.join(", ")}), which costs PostgreSQL more per statement than the byte order migrate gives new tables. Converting rebuilds a table's indexes under an exclusive lock: run \`bizdata migrate --convert-large-tables\` at a quiet hour.`,
        ]),
  ];
}
