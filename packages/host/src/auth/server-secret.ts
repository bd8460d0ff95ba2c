/**
 * Random secrets shared by every host instance through the database, one per purpose: the OAuth
 * server's cookies and form tokens (a browser may be served by any instance), and the MCP
 * endpoint's request state (a question's answer may come to any instance). Made by the first
 * host that needs one; the others read it.
 */
import { randomBytes } from "node:crypto";
import { type Database, tableQueries } from "@bizdata/core";
import { and, eq } from "drizzle-orm";
import { oauthStateTable as s } from "./auth-tables.js";

export type SecretPurpose = "cookies" | "mcpRequestState";

export async function serverSecret(db: Database, purpose: SecretPurpose): Promise<string> {
  const q = tableQueries(db);
  const row = { kind: "ServerSecret", id: purpose } as const;
  const payload = JSON.stringify({ secret: randomBytes(32).toString("base64url") });
  await q
    .insert(s)
    .values({ ...row, payload })
    .onConflictDoNothing();
  const [stored] = await q
    .select({ payload: s.payload })
    .from(s)
    .where(and(eq(s.kind, row.kind), eq(s.id, row.id)));
  return (JSON.parse(stored!.payload) as { secret: string }).secret;
}
