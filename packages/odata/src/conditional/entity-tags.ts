/**
 * Entity tags (RFC 9110 §8.8.3) as this service writes and reads them. An entity's tag is weak,
 * `W/"<version>"`: the version names the record's state, while its representation varies with
 * `$select`, `$expand` and the metadata level, which is what a weak tag means. Conditions compare
 * weakly (the opaque tags alone), so a tag sent back as it was received matches, also in
 * `If-Match`, where RFC 9110 asks for the strong comparison that a weak tag never passes: OData
 * clients send the `@odata.etag` they were given, and OData asks only that the condition hold.
 */
import { badRequest } from "@bizdata/core";

/** the tag of a record at `version` (staged-view.ts says what a version is) */
export const etagOf = (version: string): string => `W/"${version}"`;

/** `*`, or the opaque tags of a list of entity tags */
export type EntityTags = "*" | readonly string[];

// `W/"…"` or `"…"`; etagc is %x21 / %x23-7E / obs-text (RFC 9110 §8.8.3), then the list's comma
const TAG = /[ \t]*(?:W\/)?"([\x21\x23-\x7E\x80-\xFF]*)"[ \t]*(?:,|$)/y;
const EMPTY = /[ \t]*(?:,|$)/y;

/**
 * Parses `If-Match` or `If-None-Match`: `*` or a comma-separated list of entity tags.
 * @throws ServiceError 400 `InvalidHeader` naming the header and where the value stops making sense
 */
export function parseEntityTags(header: "If-Match" | "If-None-Match", value: string): EntityTags {
  const text = value.trim();
  if (text === "*") return "*";
  const tags: string[] = [];
  let at = 0;
  while (at < text.length) {
    TAG.lastIndex = at;
    const tag = TAG.exec(text);
    if (tag !== null) {
      tags.push(tag[1]!);
      at = TAG.lastIndex;
      continue;
    }
    // a list may hold empty elements (RFC 9110 §5.6.1)
    EMPTY.lastIndex = at;
    if (EMPTY.exec(text) !== null && EMPTY.lastIndex > at) {
      at = EMPTY.lastIndex;
      continue;
    }
    throw badRequest(
      "InvalidHeader",
      `${header} must be * or a list of entity tags such as W/"3" (with the quotes); "${value}" is not, from position ${at + 1}.`,
      header,
    );
  }
  if (tags.length === 0) {
    throw badRequest("InvalidHeader", `${header} is empty; send * or the entity tag, e.g. W/"3".`, header);
  }
  return tags;
}

/** whether `tags` match a record at `version`, weakly; `*` matches any record that exists */
export const tagsMatch = (tags: EntityTags, version: string | undefined): boolean =>
  version !== undefined && (tags === "*" || tags.includes(version));
