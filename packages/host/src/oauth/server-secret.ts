/**
 * One random secret shared by every host instance through the database: it signs the OAuth
 * server's cookies and the forms' CSRF tokens, so a browser may be served by any instance.
 * Made by the first host to start; the others read it.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { type Database, tableQueries } from "@bizdata/core";
import { and, eq } from "drizzle-orm";
import { oauthStateTable as s } from "../auth/auth-tables.js";

const ROW = { kind: "ServerSecret", id: "cookies" } as const;

export async function serverSecret(db: Database): Promise<string> {
  const q = tableQueries(db);
  const payload = JSON.stringify({ secret: randomBytes(32).toString("base64url") });
  await q
    .insert(s)
    .values({ ...ROW, payload })
    .onConflictDoNothing();
  const [row] = await q
    .select({ payload: s.payload })
    .from(s)
    .where(and(eq(s.kind, ROW.kind), eq(s.id, ROW.id)));
  return (JSON.parse(row!.payload) as { secret: string }).secret;
}

/**
 * CSRF tokens bound to one interaction: only a page rendered for that interaction carries its
 * token, and the provider's interaction cookie (SameSite=Lax, its own path) must come along too.
 */
export function formTokens(secret: string) {
  const tokenFor = (uid: string) => createHmac("sha256", secret).update(`csrf:${uid}`).digest("base64url");
  return {
    tokenFor,
    matches(uid: string, given: unknown): boolean {
      if (typeof given !== "string") return false;
      const expected = Buffer.from(tokenFor(uid));
      const actual = Buffer.from(given);
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },
  };
}
