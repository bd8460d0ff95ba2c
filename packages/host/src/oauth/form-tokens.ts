/**
 * CSRF tokens bound to one interaction: only a page rendered for that interaction carries its
 * token, and the provider's interaction cookie (SameSite=Lax, its own path) must come along too.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

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
