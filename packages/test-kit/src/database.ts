/**
 * The database tests run against: `DATABASE_URL` when set (a PostgreSQL project of vitest.config.ts
 * sets it, a PGlite project clears it), else an in-memory PGlite. One per worker process, opened on
 * first use; tests isolate by tenant.
 */
import { randomUUID } from "node:crypto";
import { type Database, openDatabase } from "@bizdata/core";

let shared: Promise<Database> | undefined;

export const testDatabase = (): Promise<Database> => {
  shared ??= openDatabase({ url: process.env.DATABASE_URL || "memory://" });
  return shared;
};

/** a tenant id no other test uses */
export const uniqueTenant = (label = "t"): string => `${label}-${randomUUID().slice(0, 8)}`;
