/**
 * The password check every sign-in goes through (`POST /api/auth/signin` and the OAuth sign-in
 * page): throttled per account and per client address before any password is hashed, and an
 * unknown user still costs a hash, so neither the outcome nor its timing tells which part was wrong.
 */
import type { Database } from "@bizdata/core";
import { findUser } from "../tenants/tenant-admin.js";
import { DUMMY_HASH, verifyPassword } from "./passwords.js";
import {
  accountKey,
  addressKey,
  blockedFor,
  clearFailures,
  defaultThrottle,
  recordFailure,
  type ThrottleSettings,
} from "./sign-in-throttle.js";

export type SignInOutcome =
  | { readonly kind: "signed-in"; readonly roles: readonly string[] }
  | { readonly kind: "rejected" }
  /** `retryAfter`: seconds until the block ends */
  | { readonly kind: "throttled"; readonly retryAfter: number };

export async function checkSignIn(
  db: Database,
  tenantId: string,
  username: string,
  password: string,
  /** the client's address through trusted proxies (TRUSTED_PROXIES); undefined for in-process requests */
  address: string | undefined,
  throttle: ThrottleSettings = defaultThrottle,
): Promise<SignInOutcome> {
  const account = accountKey(tenantId, username);
  const keys = [account, ...(address ? [addressKey(address)] : [])];
  const wait = await blockedFor(db, keys);
  if (wait > 0) return { kind: "throttled", retryAfter: wait };
  const user = await findUser(db, tenantId, username);
  const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok) {
    await recordFailure(db, account, throttle.accountFailures, throttle.windowSeconds);
    if (address) await recordFailure(db, addressKey(address), throttle.addressFailures, throttle.windowSeconds);
    return { kind: "rejected" };
  }
  await clearFailures(db, account);
  return { kind: "signed-in", roles: user.roles };
}
