/** What a payload says apart from its control information, for tests about the data. */
const CONTROL = /^@odata\.(context|etag|id|type|editLink)$|@odata\.navigationLink$/;

/**
 * A payload without its control information (`@odata.context`, `@odata.etag` and, at full
 * metadata, ids, types and links), for tests about the data; `@odata.count` and
 * `@odata.nextLink` stay, as they are part of what a collection says.
 */
export function dataOf<T>(payload: T): T {
  if (Array.isArray(payload)) return payload.map(dataOf) as T;
  if (payload === null || typeof payload !== "object") return payload;
  return Object.fromEntries(
    Object.entries(payload).flatMap(([key, value]) => (CONTROL.test(key) ? [] : [[key, dataOf(value)]])),
  ) as T;
}
