/**
 * The password check every sign-in goes through (`POST /api/auth/signin` and the OAuth sign-in
 * page): counted by the throttle before any password is hashed, and an unknown user still costs
 * a hash, so neither the outcome nor its timing tells which part was wrong.
 */
import type { Database } from "@bizdata/core";
import { findUser } from "../tenants/tenant-admin.js";
import { DUMMY_HASH, verifyPassword } from "./passwords.js";
import {
  admitAttempt,
  attemptKeys,
  defaultThrottle,
  recordSuccess,
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
  const keys = attemptKeys(throttle, tenantId, username, address);
  const admission = await admitAttempt(db, keys, throttle);
  if (!admission.allowed) return { kind: "throttled", retryAfter: admission.retryAfter };
  const user = await findUser(db, tenantId, username);
  const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok) return { kind: "rejected" };
  await recordSuccess(db, keys);
  return { kind: "signed-in", roles: user.roles };
}
