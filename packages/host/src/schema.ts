/**
 * The schema a host serves: the model's tables with core's, the workflow package's and the
 * host's own (users, tokens, keys, throttling, imports). `bizdata migrate` and the host's start run this.
 */
import { type Database, type Model, migrate } from "@bizdata/core";
import { workflowTables } from "@bizdata/workflow";
import { authTables } from "./auth/auth-tables.js";
import { importTables } from "./import/import-tables.js";

/** the tables of the packages the host uses, besides the model's and core's */
export const serviceTables = [...workflowTables, ...authTables, ...importTables];

/** Creates or upgrades everything the host needs for `model`; safe to run any number of times, concurrently. */
export const migrateService = (db: Database, model: Model): Promise<void> => migrate(db, model, serviceTables);
