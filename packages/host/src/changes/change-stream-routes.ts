/**
 * `GET {base}/$changes`: the tenant's changes as they commit, as Server-Sent Events
 * (text/event-stream), read from the change log (core's change-table.ts) behind the API's own
 * authentication and rights: a caller follows the entity sets it may read (`?entities=A,B` names
 * some: one it may not read is 403, one the model lacks 400), and sees who made a change, in which
 * request, and its values only where its roles may read the entity's history (`history` grant,
 * as `$history` asks). Each event: `id:` its position, `event: change`, `data:` the change as JSON.
 *
 * Where it starts: after `Last-Event-ID` (the header an EventSource sends when it reconnects), or
 * `?lastEventId=` for a client that cannot send headers on its first request (the header wins:
 * a reconnecting EventSource keeps the URL it began with); without either, at the log's watermark
 * read before the answer starts, so every write begun after the client has the answer's headers is
 * in it. A position older than CHANGE_LOG_RETENTION is refused `410 EventIdExpired` before the
 * stream starts, as a delta link is (the log may no longer hold all that follows it).
 *
 * The stream ends when the access token expires (the client reconnects with a new one and its last
 * id), when the client leaves events unread past CHANGE_STREAM_MAX_BUFFER, and when the host
 * shuts down; each is resumed without a gap or a repeat from the last event's id.
 */
import type { ServerResponse } from "node:http";
import {
  badRequest,
  type ChangeRow,
  changeWatermark,
  type Database,
  forbidden,
  inTenant,
  type Model,
  readChanges,
  ServiceError,
} from "@bizdata/core";
import { type Context, Hono } from "hono";
import { decodeJwt } from "jose";
import type { Logger } from "pino";
import type { AuthVariables } from "../auth/authenticate.js";
import { can, type Roles } from "../auth/permissions.js";
import type { Principal } from "../auth/principal.js";
import { requestLogger, untilStreamEnds } from "../observability/request-context.js";
import { changeStream, STREAM_PAGE } from "./change-stream.js";
import type { ChangeStreams } from "./change-streams.js";
import { checkRetention, decodePosition, type StreamPosition } from "./stream-position.js";

type Env = { Variables: AuthVariables };

/** the stream's path under the base path */
export const CHANGES_PATH = "/$changes";

export interface ChangeStreamRouteOptions {
  readonly db: Database;
  readonly model: Model;
  readonly roles: Roles;
  readonly streams: ChangeStreams;
  /** CHANGE_LOG_RETENTION, seconds */
  readonly retention: number;
  /** CHANGE_LOG: off, the log holds nothing to stream */
  readonly enabled: boolean;
  readonly logger: Logger;
  /** runs one read of the log in a place of the tenant's (TenantShare); none when left out */
  readonly place?: <T>(tenantId: string, work: () => Promise<T>) => Promise<T>;
}

const OPTIONS = new Set(["entities", "lastEventId"]);

/** the entities a caller's stream follows: those `listed` (every one it may read when none are) */
export function streamedEntities(model: Model, roles: Roles, principal: Principal, listed: string | undefined) {
  if (listed === undefined) {
    const readable = [...model.entities.keys()].filter((name) => can(roles, principal, "read", name));
    if (readable.length === 0) throw forbidden("reading any entity set");
    return readable;
  }
  const names = [...new Set(listed.split(",").map((name) => name.trim()))];
  for (const name of names) {
    if (!model.entities.has(name))
      throw badRequest("UnknownEntitySet", `entities names ${JSON.stringify(name)}, which is no entity set.`, name);
    if (!can(roles, principal, "read", name)) throw forbidden(`reading ${name}`);
  }
  return names;
}

/** the entities whose changes the caller sees in full (who, which request, the values): those whose history it may read */
function detailedEntities(model: Model, roles: Roles, principal: Principal, entities: readonly string[]) {
  return new Set(
    entities.filter((name) => {
      const owner = model.owner(name)?.entity.name;
      return can(roles, principal, "history", name) || (owner !== undefined && can(roles, principal, "history", owner));
    }),
  );
}

/** a change as its event says it */
export function eventData(row: ChangeRow, detailed: boolean): string {
  return JSON.stringify({
    entity: row.entity,
    key: row.key,
    kind: row.kind,
    properties: row.properties ?? [],
    owner: row.owner,
    at: row.at,
    ...(detailed && {
      actor: row.actor,
      requestId: row.requestId,
      ...(row.data !== null && { values: row.data }),
    }),
  });
}

/** milliseconds until the access token `token` expires, if it says */
function expiresIn(token: string): number | undefined {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === "number" ? exp * 1000 - Date.now() : undefined;
  } catch {
    return undefined;
  }
}

/** where a request's stream starts: after the position it sent, or at the watermark now */
async function startOf(
  c: Context<Env>,
  options: ChangeStreamRouteOptions,
  tenantId: string,
): Promise<{ start: StreamPosition; resumed: boolean }> {
  const header = c.req.header("last-event-id");
  const option = c.req.query("lastEventId");
  const sent = header
    ? { text: header, source: "Last-Event-ID" }
    : option
      ? { text: option, source: "lastEventId" }
      : undefined;
  if (sent !== undefined) {
    const start = decodePosition(sent.text, sent.source);
    checkRetention(start, options.retention);
    return { start, resumed: true };
  }
  const read = () => inTenant(options.db, tenantId, changeWatermark, { readOnly: true });
  const xid = await (options.place ? options.place(tenantId, read) : read());
  return { start: { xid, seq: 0, at: Date.now() }, resumed: false };
}

export function changeStreamRoutes(options: ChangeStreamRouteOptions) {
  const { db, model, roles, streams } = options;
  const { heartbeatMs, maxBufferBytes } = streams.settings;
  return new Hono<Env>().get(CHANGES_PATH, async (c) => {
    if (!options.enabled)
      throw new ServiceError("NotFound", "The change log is off on this host (CHANGE_LOG=off): there is no stream.");
    const search = new URL(c.req.url).searchParams;
    for (const name of search.keys())
      if (!OPTIONS.has(name))
        throw badRequest("NotSupported", `$changes takes entities and lastEventId, not ${name}.`, name);
    const principal = c.get("principal");
    const { tenantId } = principal;
    const entities = streamedEntities(model, roles, principal, search.get("entities") ?? undefined);
    const detailed = detailedEntities(model, roles, principal, entities);
    const { start, resumed } = await startOf(c, options, tenantId);
    const logger = requestLogger(c, options.logger);
    let stream: ReturnType<typeof changeStream> | undefined;
    const release = streams.open(tenantId, principal.username, () => stream?.end());
    const lifetime = expiresIn(c.get("accessToken"));
    const expiry = lifetime === undefined ? undefined : setTimeout(() => stream?.end(), Math.max(0, lifetime)).unref();
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    const read = (position: StreamPosition) => {
      const work = () =>
        inTenant(
          db,
          tenantId,
          (tx) => readChanges(tx, tenantId, { entities, from: position.xid, after: position, limit: STREAM_PAGE }),
          { readOnly: true },
        );
      return (options.place ? options.place(tenantId, work) : work()).then((page) => page.rows);
    };
    stream = changeStream({
      start,
      read,
      watch: (wake) => streams.feeds.watch(tenantId, wake),
      data: (row) => eventData(row, detailed.has(row.entity)),
      heartbeatMs,
      maxBufferBytes,
      announceStart: !resumed,
      cut: outgoing && (() => outgoing.destroy()),
      ended: (why, err) => {
        clearTimeout(expiry);
        release();
        if (why === "failed") logger.warn({ err }, "change stream ended: reading the change log failed");
        else if (why === "slow")
          logger.info({ maxBufferBytes }, "change stream closed: its client left too much unread");
      },
    });
    return c.newResponse(untilStreamEnds(c, stream.body), 200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "private, no-store",
      // a buffering proxy (nginx) would hold events back
      "X-Accel-Buffering": "no",
    });
  });
}
