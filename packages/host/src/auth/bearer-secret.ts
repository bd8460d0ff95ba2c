/**
 * A configured secret sent as a bearer token (METRICS_TOKEN, OAUTH_REGISTRATION_TOKEN). Digests
 * are compared, so neither the length nor the content of the secret leaks through timing.
 */
import { createHash, timingSafeEqual } from "node:crypto";

const digest = (text: string) => createHash("sha256").update(text).digest();

/** whether `authorization` (the header's value) is `Bearer <secret>` */
export function bearerSecretMatches(authorization: string | undefined, secret: string): boolean {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
  return given !== undefined && timingSafeEqual(digest(given), digest(secret));
}
