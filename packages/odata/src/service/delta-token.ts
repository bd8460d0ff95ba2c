/**
 * The tokens of change tracking's links (OData 4.01 Protocol §11.3): `$deltatoken` in a delta
 * link, `$skiptoken` in the next link of a page of a tracked read or of a delta. Opaque to a
 * client: base64url of a few fields separated by dots, among them
 *
 * - the change log watermark the changes are read from (change-reads.ts), and for a delta's next
 *   page the end of its range and where the page before ended;
 * - when the tracking began (milliseconds), to refuse a token older than the change log's
 *   retention (410) before reading a log that may no longer hold all it needs;
 * - a digest of the entity set and the query options the link carries, so that a token sent with
 *   other options (another `$filter` would give another set) is refused instead of answered wrong.
 */
import { createHash } from "node:crypto";
import { badRequest, type ChangePosition, isTransactionId, ServiceError } from "@bizdata/core";
import { systemQueryOption } from "../syntax/parse-query-options.js";

export type DeltaToken =
  /** `$deltatoken`: the changes from `from` on */
  | { readonly kind: "delta"; readonly from: string; readonly began: number; readonly query: string }
  /** `$skiptoken` of a tracked read's next page: its delta link will read from `from` */
  | { readonly kind: "snapshot"; readonly from: string; readonly began: number; readonly query: string }
  /** `$skiptoken` of a delta's next page: the range `[from, to)` after `after` */
  | {
      readonly kind: "page";
      readonly from: string;
      readonly to: string;
      readonly after: ChangePosition;
      readonly began: number;
      readonly query: string;
    };

const LETTERS = { delta: "d", snapshot: "s", page: "p" } as const;

/** the options that are no part of what a link tracks: paging, the count, and the tokens themselves */
const UNTRACKED = new Set(["$skip", "$top", "$count", "$skiptoken", "$deltatoken"]);

/** the options a link of a tracked read carries: the client's, less paging and tokens */
export const trackedOptions = (search: URLSearchParams): URLSearchParams =>
  new URLSearchParams(
    [...search].filter(([name]) => !UNTRACKED.has(systemQueryOption(name) ?? trackingOption(name) ?? "")),
  );

/** `$deltatoken` or `$skiptoken` as `name` spells it (`$` optional, any case: OData 4.01), else undefined */
export function trackingOption(name: string): "$deltatoken" | "$skiptoken" | undefined {
  const canonical = `$${(name.startsWith("$") ? name.slice(1) : name).toLowerCase()}`;
  return canonical === "$deltatoken" || canonical === "$skiptoken" ? canonical : undefined;
}

/** the digest of what a token tracks: the path and its options, in a canonical order */
export function queryDigest(path: string, search: URLSearchParams): string {
  const options = [...trackedOptions(search)]
    .map(([name, value]) => [systemQueryOption(name) ?? name, value] as const)
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1));
  return createHash("sha256")
    .update(JSON.stringify([path, options]))
    .digest("base64url")
    .slice(0, 12);
}

export function encodeToken(token: DeltaToken): string {
  const fields =
    token.kind === "page" ? [token.from, token.to, token.after.xid, String(token.after.seq)] : [token.from];
  return Buffer.from([LETTERS[token.kind], ...fields, String(token.began), token.query].join(".")).toString(
    "base64url",
  );
}

const malformed = (option: string) =>
  badRequest(
    "InvalidDeltaToken",
    `${option} is not a token this service wrote: follow the links it answers with as they are.`,
    option,
  );

/** the token `text` of `option`, checked to be one of `kind` written for `digest` */
export function decodeToken(text: string, option: "$deltatoken" | "$skiptoken", digest: string): DeltaToken {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) throw malformed(option);
  const [letter, ...fields] = Buffer.from(text, "base64url").toString("latin1").split(".");
  const query = fields.pop();
  const began = Number(fields.pop());
  if (!Number.isSafeInteger(began) || began < 0 || query === undefined) throw malformed(option);
  const ids = (values: readonly (string | undefined)[]) => values.every((v) => v !== undefined && isTransactionId(v));
  let token: DeltaToken;
  if (letter === LETTERS.delta && option === "$deltatoken" && fields.length === 1 && ids(fields))
    token = { kind: "delta", from: fields[0]!, began, query };
  else if (letter === LETTERS.snapshot && option === "$skiptoken" && fields.length === 1 && ids(fields))
    token = { kind: "snapshot", from: fields[0]!, began, query };
  else if (letter === LETTERS.page && option === "$skiptoken" && fields.length === 4 && ids(fields.slice(0, 3))) {
    const seq = Number(fields[3]);
    if (!Number.isSafeInteger(seq) || seq < 0) throw malformed(option);
    token = { kind: "page", from: fields[0]!, to: fields[1]!, after: { xid: fields[2]!, seq }, began, query };
  } else throw malformed(option);
  // one text per token: base64url takes stray trailing characters, and a token has no variants
  if (encodeToken(token) !== text) throw malformed(option);
  if (token.query !== digest)
    throw badRequest(
      "InvalidDeltaToken",
      `This ${option} belongs to another query: send it with the entity set and options of the link it came in.`,
      option,
    );
  return token;
}

/** refuses a token whose tracking began before the change log's retention (`retention` seconds) */
export function checkRetention(token: DeltaToken, retention: number, now = Date.now()): void {
  if (token.began >= now - retention * 1000) return;
  const began = new Date(token.began).toISOString();
  throw new ServiceError(
    "DeltaTokenExpired",
    `This link tracks changes since ${began}, longer ago than the change log keeps them (${retention} s): read the collection again with Prefer: odata.track-changes for a new delta link.`,
  );
}
