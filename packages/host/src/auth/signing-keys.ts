/**
 * The key pair that signs access tokens: generated once (ES256) and stored in the database, so
 * every host instance signs and verifies with the same keys. Verification accepts every stored
 * key by `kid`, which is what lets a rotation keep older tokens valid until they expire.
 */
import { type Database, tableQueries } from "@bizdata/core";
import { asc, desc, sql } from "drizzle-orm";
import { type CryptoKey, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { signingKeyTable } from "./auth-tables.js";

export const ALGORITHM = "ES256";

export interface SigningKeys {
  /** `jwk`: the private key as a JWK, for a signer that takes keys in that form (the OAuth server) */
  readonly current: { readonly kid: string; readonly key: CryptoKey; readonly jwk: JWK };
  readonly verification: ReadonlyMap<string, CryptoKey>;
  /** public keys as a JWKS document */
  readonly jwks: { readonly keys: readonly JWK[] };
  /**
   * Reads the stored keys again (at most once a second): a token signed with a key another
   * host rotated in is then verified without a restart.
   */
  readonly refresh: () => Promise<void>;
}

const k = signingKeyTable;

const load = (db: Database) =>
  tableQueries(db)
    .select({ kid: k.kid, privateJwk: k.privateJwk, publicJwk: k.publicJwk })
    .from(k)
    .orderBy(desc(k.createdAt), asc(k.kid));

/** Stores a new key pair; it signs from the next (re)load on, and older keys keep verifying. */
export async function rotateSigningKey(db: Database): Promise<string> {
  const { privateKey, publicKey } = await generateKeyPair(ALGORITHM, { extractable: true });
  const kid = crypto.randomUUID();
  await tableQueries(db)
    .insert(k)
    .values({
      kid,
      algorithm: ALGORITHM,
      privateJwk: JSON.stringify(await exportJWK(privateKey)),
      publicJwk: JSON.stringify(await exportJWK(publicKey)),
    });
  return kid;
}

const REFRESH_COOLDOWN_MS = 1_000;

/**
 * The keys a host signs and verifies with. A key from configuration (`configured`, a private
 * ES256 JWK with a `kid`) signs; otherwise the newest stored key does (generated on first start).
 * Every stored key verifies, so tokens of a rotated-out key stay valid until they expire.
 */
export async function loadSigningKeys(db: Database, configured?: JWK): Promise<SigningKeys> {
  if (configured !== undefined) {
    if (typeof configured.kid !== "string" || configured.d === undefined) {
      throw new Error("AUTH_SIGNING_KEY must be a private ES256 JWK with a kid.");
    }
    const { d: _, ...publicJwk } = configured;
    // stored like any key, so that other hosts verify its tokens; created now, so it is the newest
    await tableQueries(db)
      .insert(k)
      .values({
        kid: configured.kid,
        algorithm: ALGORITHM,
        privateJwk: JSON.stringify(configured),
        publicJwk: JSON.stringify(publicJwk),
      })
      .onConflictDoUpdate({ target: k.kid, set: { createdAt: sql`now()` } });
  }
  let rows = await load(db);
  if (rows.length === 0) {
    await rotateSigningKey(db);
    // another host may have made one at the same time: every stored key verifies, the newest signs
    rows = await load(db);
  }
  const verification = new Map<string, CryptoKey>();
  const keys: JWK[] = [];
  let current: SigningKeys["current"] | undefined;
  let refreshedAt = 0;
  const apply = async (stored: Awaited<ReturnType<typeof load>>) => {
    for (const row of stored) {
      if (verification.has(row.kid)) continue;
      const publicJwk = JSON.parse(row.publicJwk) as JWK;
      verification.set(row.kid, (await importJWK(publicJwk, ALGORITHM)) as CryptoKey);
      keys.push({ ...publicJwk, kid: row.kid, alg: ALGORITHM, use: "sig" });
    }
    const newest = stored[0]!;
    if (current?.kid !== newest.kid) {
      const jwk = { ...(JSON.parse(newest.privateJwk) as JWK), kid: newest.kid, alg: ALGORITHM, use: "sig" };
      current = { kid: newest.kid, key: (await importJWK(jwk, ALGORITHM)) as CryptoKey, jwk };
    }
  };
  await apply(rows);
  const signingKeys = {
    get current() {
      return current!;
    },
    verification,
    jwks: { keys },
    refresh: async () => {
      if (Date.now() - refreshedAt < REFRESH_COOLDOWN_MS) return;
      refreshedAt = Date.now();
      await apply(await load(db));
    },
  };
  return signingKeys;
}
