/**
 * Administration of tenants, users and features: what the CLI commands and the demo seeding do.
 * Each runs in the tenant's own scope, so row-level security applies here too.
 */
import { type Database, inTenant, isTenantId } from "@bizdata/core";
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
    tx.query({
      sql: "INSERT INTO bizdata_tenant (id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING id",
      params: [id, name],
    }),
  );
  return rows.length > 0;
}

export async function tenantExists(db: Database, id: string): Promise<boolean> {
  if (!isTenantId(id)) return false;
  const rows = await inTenant(db, id, (tx) =>
    tx.query({ sql: "SELECT 1 FROM bizdata_tenant WHERE id = $1", params: [id] }),
  );
  return rows.length > 0;
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
    tx.query({
      sql: `INSERT INTO bizdata_user (tenant_id, username, password_hash, roles) VALUES ($1, $2, $3, $4::text[])
            ON CONFLICT (tenant_id, username) DO UPDATE SET password_hash = EXCLUDED.password_hash, roles = EXCLUDED.roles`,
      params: [tenantId, username, passwordHash, `{${roles.map((r) => `"${r}"`).join(",")}}`],
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
    tx.query<{ password_hash: string; roles: string[] | string }>({
      sql: "SELECT password_hash, roles FROM bizdata_user WHERE tenant_id = $1 AND username = $2",
      params: [tenantId, username],
    }),
  );
  if (row === undefined) return undefined;
  return { passwordHash: row.password_hash, roles: Array.isArray(row.roles) ? row.roles : parseTextArray(row.roles) };
}

// a driver may hand back text[] in its literal form
const parseTextArray = (literal: string): string[] =>
  literal
    .replace(/^\{|\}$/g, "")
    .split(",")
    .filter((s) => s.length > 0)
    .map((s) => s.replace(/^"|"$/g, ""));

export async function setFeature(db: Database, tenantId: string, feature: string, enabled: boolean): Promise<void> {
  if (!(await tenantExists(db, tenantId))) throw new Error(`Tenant "${tenantId}" does not exist; create it first.`);
  await inTenant(db, tenantId, (tx) =>
    tx.query(
      enabled
        ? {
            sql: "INSERT INTO bizdata_tenant_feature (tenant_id, feature) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            params: [tenantId, feature],
          }
        : {
            sql: "DELETE FROM bizdata_tenant_feature WHERE tenant_id = $1 AND feature = $2",
            params: [tenantId, feature],
          },
    ),
  );
}

export async function tenantFeatures(db: Database, tenantId: string): Promise<string[]> {
  const rows = await inTenant(db, tenantId, (tx) =>
    tx.query<{ feature: string }>({
      sql: "SELECT feature FROM bizdata_tenant_feature WHERE tenant_id = $1 ORDER BY feature",
      params: [tenantId],
    }),
  );
  return rows.map((r) => r.feature);
}
