/**
 * A client that follows the tenant's changes as they commit, through the change stream
 * (`GET /api/$changes`, Server-Sent Events; docs/guide/change-tracking.md): it keeps the id of
 * the last event it handled and sends it back as `Last-Event-ID` whenever it reconnects, after
 * the stream ended (the host restarted, the token expired, the client fell behind) or after the
 * script itself was restarted, so that it sees every change exactly once. A position older than
 * the service's change log (410) starts over from now: resync the data first (delta-sync.ts).
 * Nothing but `fetch`.
 *
 * Run it against a host (a sign-in's access token in TOKEN); it keeps its position in a file:
 *
 *   BASE=http://127.0.0.1:3000 TOKEN=… node --import tsx examples/src/sync/follow-changes.ts
 */
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

/** a GET of a URL under the service's origin (`/api/$changes?…`), with headers */
export type Open = (url: string, headers: Record<string, string>) => Promise<Response>;

/** one change as the stream sends it (who, which request and values where the caller may read a history) */
export interface Change {
  readonly entity: string;
  readonly key: string;
  readonly kind: "create" | "update" | "delete";
  readonly properties: string[];
  readonly owner: string | null;
  readonly at: string;
  readonly actor?: string | null;
  readonly requestId?: string | null;
  readonly values?: Record<string, unknown>;
}

/** where the client is: the id of the last event it handled */
export interface Cursor {
  lastEventId: string | undefined;
}

/**
 * Follows the stream `url` (`/api/$changes?entities=Product`) from `cursor` on, calling `handle`
 * for each change and then moving the cursor past it, until `handle` returns false (`stopped`)
 * or the stream ends (`ended`: reconnect). A position too old for the service is dropped
 * (`expired`): resync, then follow from now.
 */
export async function follow(
  open: Open,
  url: string,
  cursor: Cursor,
  handle: (change: Change) => boolean | undefined | Promise<boolean | undefined>,
): Promise<"stopped" | "ended" | "expired"> {
  const res = await open(url, cursor.lastEventId === undefined ? {} : { "Last-Event-ID": cursor.lastEventId });
  if (res.status === 410) {
    cursor.lastEventId = undefined;
    return "expired";
  }
  if (!res.ok || res.body === null) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return "ended";
      text += value;
      // events end with a blank line; lines are `field: value`, comments (heartbeats) start with ':'
      for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n")) {
        const fields = new Map<string, string>();
        for (const line of text.slice(0, end).split("\n")) {
          const colon = line.indexOf(":");
          if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
        }
        text = text.slice(end + 2);
        const id = fields.get("id");
        if (fields.get("event") === "change") {
          const keepOn = await handle(JSON.parse(fields.get("data")!) as Change);
          cursor.lastEventId = id;
          if (keepOn === false) return "stopped";
        } else if (id !== undefined) cursor.lastEventId = id; // the stream's start, before any change
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

// run as a script: print every change of the products and orders, reconnecting as the stream ends
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const base = process.env.BASE ?? "http://127.0.0.1:3000";
  const token = process.env.TOKEN;
  if (!token) throw new Error("Set TOKEN to an access token (POST /api/auth/signin).");
  const file = process.env.CURSOR_FILE ?? ".last-event-id";
  const cursor: Cursor = { lastEventId: (await readFile(file, "utf8").catch(() => "")).trim() || undefined };
  const open: Open = (url, headers) => fetch(base + url, { headers: { ...headers, Authorization: `Bearer ${token}` } });
  for (;;) {
    const why = await follow(open, "/api/$changes?entities=Product,SalesOrder", cursor, async (change) => {
      console.log(`${change.at} ${change.kind} ${change.entity}(${change.key}) ${change.properties.join(",")}`);
      return undefined;
    }).catch((err: unknown) => {
      console.error(String(err));
      return "ended" as const;
    });
    if (why === "expired") console.log("the position is older than the service keeps changes: following from now");
    if (cursor.lastEventId !== undefined) await writeFile(file, cursor.lastEventId);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
