/**
 * Administration of tenants, users and features: what the CLI commands and the demo seeding do.
 * Each runs in the tenant's own scope, so row-level security applies here too.
 */
import { type Database, inTenant, isTenantId, tableQueries, tenantFeatureTable, tenantTable } from "@bizdata/core";
import { and, asc, eq } from "drizzle-orm";
import { userTable } from "../auth/auth-tables.js";
import { hashPassword } from "../auth/passwords.js";

const checkTenantId = (id: string) => {
  if (!isTenantId(id)) {
    throw new Error(
      `Tenant id "${id}" is not valid: use 1-64 letters, digits, "_", "-" or ".", starting with a letter or digit.`,
    );
  }
};

/** Creates the tenant if it does not exist; returns whether it was created. */
export async function createTenant(db: Database, id: string, name: string = id): Promise<boolean> {
  checkTenantId(id);
  const rows = await inTenant(db, id, (tx) =>
    tableQueries(tx).insert(tenantTable).values({ id, name }).onConflictDoNothing().returning({ id: tenantTable.id }),
  );
  return rows.length > 0;
}

export async function tenantExists(db: Database, id: string): Promise<boolean> {
  if (!isTenantId(id)) return false;
  const rows = await inTenant(db, id, (tx) =>
    tableQueries(tx).select({ id: tenantTable.id }).from(tenantTable).where(eq(tenantTable.id, id)),
  );
  return rows.length > 0;
}

/** whether the database has any tenant (an embedded start seeds a demo set only when it has none) */
export async function hasTenants(db: Database): Promise<boolean> {
  const [row] = await tableQueries(db).select({ id: tenantTable.id }).from(tenantTable).limit(1);
  return row !== undefined;
}

/** Creates a user, or resets the password and roles of an existing one. */
export async function setUser(
  db: Database,
  tenantId: string,
  username: string,
  password: string,
  roles: readonly string[],
) {
  if (!(await tenantExists(db, tenantId))) throw new Error(`Tenant "${tenantId}" does not exist; create it first.`);
  if (username.length === 0 || username.length > 128) throw new Error("A username has 1 to 128 characters.");
  const passwordHash = await hashPassword(password);
  await inTenant(db, tenantId, (tx) =>
    tableQueries(tx)
      .insert(userTable)
      .values({ tenantId, username, passwordHash, roles: [...roles] })
      .onConflictDoUpdate({
        target: [userTable.tenantId, userTable.username],
        set: { passwordHash, roles: [...roles] },
      }),
  );
}

export async function findUser(
  db: Database,
  tenantId: string,
  username: string,
): Promise<{ passwordHash: string; roles: string[] } | undefined> {
  if (!isTenantId(tenantId)) return undefined;
  const [row] = await inTenant(db, tenantId, (tx) =>
    tableQueries(tx)
      .select({ passwordHash: userTable.passwordHash, roles: userTable.roles })
      .from(userTable)
      .where(and(eq(userTable.tenantId, tenantId), eq(userTable.username, username))),
  );
  if (row === undefined) return undefined;
  return { passwordHash: row.passwordHash, roles: storedRoles(row.roles) };
}

/** a user's stored roles as a driver hands them back: an array, or text[] in its literal form */
export const storedRoles = (roles: unknown): string[] => (Array.isArray(roles) ? roles : parseTextArray(String(roles)));

const parseTextArray = (literal: string): string[] =>
  literal
    .replace(/^\{|\}$/g, "")
    .split(",")
    .filter((s) => s.length > 0)
    .map((s) => s.replace(/^"|"$/g, ""));

export async function setFeature(db: Database, tenantId: string, feature: string, enabled: boolean): Promise<void> {
  if (!(await tenantExists(db, tenantId))) throw new Error(`Tenant "${tenantId}" does not exist; create it first.`);
  const f = tenantFeatureTable;
  await inTenant(db, tenantId, async (tx) => {
    if (enabled) await tableQueries(tx).insert(f).values({ tenantId, feature }).onConflictDoNothing();
    else
      await tableQueries(tx)
        .delete(f)
        .where(and(eq(f.tenantId, tenantId), eq(f.feature, feature)));
  });
}

export async function tenantFeatures(db: Database, tenantId: string): Promise<string[]> {
  const f = tenantFeatureTable;
  const rows = await inTenant(db, tenantId, (tx) =>
    tableQueries(tx).select({ feature: f.feature }).from(f).where(eq(f.tenantId, tenantId)).orderBy(asc(f.feature)),
  );
  return rows.map((r) => r.feature);
}
