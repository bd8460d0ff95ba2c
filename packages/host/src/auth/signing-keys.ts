/**
 * The key pair that signs access tokens: generated once (ES256) and stored in the database, so
 * every host instance signs and verifies with the same keys. Verification accepts every stored
 * key by `kid`, which is what lets a rotation keep older tokens valid until they expire.
 */
import type { Database } from "@bizdata/core";
import { type CryptoKey, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";

export const ALGORITHM = "ES256";

export interface SigningKeys {
  readonly current: { readonly kid: string; readonly key: CryptoKey };
  readonly verification: ReadonlyMap<string, CryptoKey>;
  /** public keys as a JWKS document */
  readonly jwks: { readonly keys: readonly JWK[] };
}

interface KeyRow {
  kid: string;
  private_jwk: string;
  public_jwk: string;
}

const load = (db: Database) =>
  db.query<KeyRow>({
    sql: "SELECT kid, private_jwk, public_jwk FROM bizdata_signing_key ORDER BY created_at DESC, kid",
    params: [],
  });

export async function loadSigningKeys(db: Database): Promise<SigningKeys> {
  let rows = await load(db);
  if (rows.length === 0) {
    const { privateKey, publicKey } = await generateKeyPair(ALGORITHM, { extractable: true });
    const kid = crypto.randomUUID();
    await db.query({
      sql: "INSERT INTO bizdata_signing_key (kid, algorithm, private_jwk, public_jwk) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
      params: [kid, ALGORITHM, JSON.stringify(await exportJWK(privateKey)), JSON.stringify(await exportJWK(publicKey))],
    });
    // another host may have won the race: whatever is stored now is the truth
    rows = await load(db);
  }
  const verification = new Map<string, CryptoKey>();
  const keys: JWK[] = [];
  for (const row of rows) {
    const publicJwk = JSON.parse(row.public_jwk) as JWK;
    verification.set(row.kid, (await importJWK(publicJwk, ALGORITHM)) as CryptoKey);
    keys.push({ ...publicJwk, kid: row.kid, alg: ALGORITHM, use: "sig" });
  }
  const newest = rows[0]!;
  return {
    current: { kid: newest.kid, key: (await importJWK(JSON.parse(newest.private_jwk) as JWK, ALGORITHM)) as CryptoKey },
    verification,
    jwks: { keys },
  };
}
