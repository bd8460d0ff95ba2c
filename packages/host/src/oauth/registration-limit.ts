/**
 * Who may register OAuth clients (RFC 7591): at most `perHour` registrations per client address
 * in an hour, counted in PostgreSQL in one statement, so that the limit holds across hosts and
 * under simultaneous requests; and, when `token` is set, only callers that send it as their
 * initial access token (RFC 7591 3). Both are checked before the provider sees the request,
 * every attempt counted, so that the token cannot be guessed at the rate of the server.
 */
import { type Database, tableQueries } from "@bizdata/core";
import { lt, sql } from "drizzle-orm";
import type { Context } from "hono";
import { oauthRegistrationTable as t } from "../auth/auth-tables.js";
import { bearerSecretMatches } from "../auth/bearer-secret.js";
import { requestClientAddress } from "../observability/request-context.js";

export interface RegistrationSettings {
  /** OAUTH_REGISTRATIONS_PER_HOUR */
  readonly perHour: number;
  /** OAUTH_REGISTRATION_TOKEN: the initial access token registration requires, when set */
  readonly token: string | undefined;
}

export const defaultRegistration: RegistrationSettings = { perHour: 20, token: undefined };

/** every this-many counted registrations of a host, windows that ended are deleted */
const SWEEP_EVERY = 100;

const HOUR = 3600;

/** counts a registration from `address`; its number in the address's hour, and the seconds until that hour ends */
async function countRegistration(db: Database, address: string): Promise<{ count: number; retryAfter: number }> {
  const ended = sql`${t.windowStart} <= now() - make_interval(secs => ${HOUR})`;
  const [row] = await tableQueries(db)
    .insert(t)
    .values({ address, windowStart: sql`now()`, registrations: 1 })
    .onConflictDoUpdate({
      target: t.address,
      set: {
        registrations: sql`CASE WHEN ${ended} THEN 1 ELSE ${t.registrations} + 1 END`,
        windowStart: sql`CASE WHEN ${ended} THEN now() ELSE ${t.windowStart} END`,
      },
    })
    .returning({
      count: t.registrations,
      retryAfter: sql<number>`ceil(extract(epoch FROM ${t.windowStart} + make_interval(secs => ${HOUR}) - now()))::int`,
    });
  return { count: Number(row!.count), retryAfter: Math.max(1, Number(row!.retryAfter)) };
}

const NO_STORE = { "Cache-Control": "no-store" };

/**
 * The answer that refuses a registration request, or undefined when it may go on to the provider:
 * 429 with `Retry-After` past the limit, 401 `invalid_token` without the initial access token.
 */
export function registrationGate(db: Database, settings: RegistrationSettings) {
  let counted = 0;
  return async (c: Context): Promise<Response | undefined> => {
    // an in-process request has no address: such requests share one count
    const address = requestClientAddress(c) ?? "";
    const { count, retryAfter } = await countRegistration(db, address);
    if (++counted % SWEEP_EVERY === 0) {
      await tableQueries(db)
        .delete(t)
        .where(lt(t.windowStart, sql`now() - make_interval(secs => ${HOUR})`));
    }
    if (count > settings.perHour) {
      return c.json(
        {
          error: "too_many_requests",
          error_description: `This address registered ${settings.perHour} clients within the hour (OAUTH_REGISTRATIONS_PER_HOUR); try again in ${retryAfter} seconds.`,
        },
        429,
        { ...NO_STORE, "Retry-After": String(retryAfter) },
      );
    }
    if (settings.token !== undefined && !bearerSecretMatches(c.req.header("authorization"), settings.token)) {
      return c.json(
        {
          error: "invalid_token",
          error_description: "Registration needs the initial access token: send Authorization: Bearer <token>.",
        },
        401,
        { ...NO_STORE, "WWW-Authenticate": 'Bearer error="invalid_token"' },
      );
    }
    return undefined;
  };
}
