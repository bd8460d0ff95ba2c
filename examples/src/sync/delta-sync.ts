/**
 * A client that keeps a copy of an entity set in step with the service through delta links
 * (docs/guide/change-tracking.md): its first read asks for `Prefer: odata.track-changes` and
 * keeps every record; every later one follows the delta link the last one ended with, puts the
 * records it names and drops the `@removed` ones; a delta link too old for the service's change
 * log (410) starts over with a full read. Nothing but `fetch`.
 *
 * Run it against a host (a sign-in's access token in TOKEN):
 *
 *   BASE=http://127.0.0.1:3000 TOKEN=… node --import tsx examples/src/sync/delta-sync.ts
 */
import { fileURLToPath } from "node:url";

/** a GET of a URL under the service's origin (`/api/Product?…`), with headers */
export type Get = (url: string, headers: Record<string, string>) => Promise<Response>;

/** the copy: records by Guid, and where the next sync reads from */
export interface Mirror {
  readonly records: Map<string, Record<string, unknown>>;
  deltaLink: string | undefined;
}

interface Page {
  readonly value: Record<string, unknown>[];
  readonly "@odata.nextLink"?: string;
  readonly "@odata.deltaLink"?: string;
}

/**
 * Brings `mirror` up to date with the collection `url` reads (`/api/Product?$select=SKU,Cost`):
 * a full read the first time, the changes since the last sync afterwards. Returns how many
 * records it put and dropped.
 */
export async function sync(get: Get, url: string, mirror: Mirror): Promise<{ put: number; dropped: number }> {
  const first = mirror.deltaLink === undefined;
  let next: string | undefined = mirror.deltaLink ?? url;
  let put = 0;
  let dropped = 0;
  while (next !== undefined) {
    const res = await get(next, first ? { Prefer: "odata.track-changes" } : {});
    if (res.status === 410 && !first) {
      // the service no longer has every change since: read it all again
      mirror.records.clear();
      mirror.deltaLink = undefined;
      return sync(get, url, mirror);
    }
    if (!res.ok) throw new Error(`GET ${next}: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as Page;
    for (const entry of page.value) {
      const guid = entry.Guid as string;
      if ("@removed" in entry) {
        if (mirror.records.delete(guid)) dropped++;
      } else {
        mirror.records.set(guid, entry);
        put++;
      }
    }
    next = page["@odata.nextLink"];
    if (next === undefined) mirror.deltaLink = page["@odata.deltaLink"];
  }
  return { put, dropped };
}

// run as a script: sync the products every five seconds, saying what changed
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const base = process.env.BASE ?? "http://127.0.0.1:3000";
  const token = process.env.TOKEN;
  if (!token) throw new Error("Set TOKEN to an access token (POST /api/auth/signin).");
  const get: Get = (url, headers) => fetch(base + url, { headers: { ...headers, Authorization: `Bearer ${token}` } });
  const mirror: Mirror = { records: new Map(), deltaLink: undefined };
  for (;;) {
    const { put, dropped } = await sync(get, "/api/Product?$select=SKU,Cost", mirror);
    console.log(`${new Date().toISOString()} ${mirror.records.size} products (${put} put, ${dropped} dropped)`);
    await new Promise((resolve) => setTimeout(resolve, 5000));
  }
}
