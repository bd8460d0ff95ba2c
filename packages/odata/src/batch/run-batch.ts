/**
 * Runs a `$batch` (spec 4.5, api-conventions: Batch), in the OData 4.01 JSON format or the 4.0
 * multipart format. Every part is replayed through an injected handler (the host's own fetch),
 * so it passes authentication, permissions, features, hooks, logic, save logic and natural-key
 * resolution exactly as a standalone request would. A changeset (atomicity group) runs in one
 * transaction with its natural-key lookups prefetched together: the first failing part rolls all
 * of them back, and the others answer 424. `dependsOn` on a failed request answers 424 too, and
 * `$<id>` of an earlier part (at the start of a URL, or as a whole string value in a body) stands
 * for what it created, and as the whole of an `If-Match`/`If-None-Match` for the ETag it answered
 * (JSON Format 4.01 §19.3). A part's conditions are its own: a 412 fails that part, and in a
 * changeset the whole changeset.
 */
import { type Model, prefetchReferences, type ReadCache, ServiceError, type Session } from "@bizdata/core";
import { readBody } from "../json-body/read-body.js";
import { isJsonInUtf8, readJsonBody, withParsedBody } from "../json-body/request-json.js";
import type { BodyLimits } from "../limits.js";
import { resolveResource } from "../read/read-planner.js";
import { jsonResult, type ODataResult } from "../service/odata-result.js";
import { currentScope } from "../service/request-scope.js";
import type { BatchPart, BatchResponsePart, ParsedBatch } from "./batch-types.js";
import { formatJsonBatchResponse } from "./format-json-response.js";
import { formatMultipartBatchResponse } from "./format-multipart-response.js";
import { parseJsonBatch } from "./parse-json-batch.js";
import { parseMultipartBatch } from "./parse-multipart-batch.js";

export interface BatchOptions {
  readonly model: Model;
  /** where the service is mounted (`/api`): part URLs are resolved against it */
  readonly basePath: string;
  readonly bodyLimits: BodyLimits;
  /** answers one part as a standalone request (a Hono host passes `app.fetch`) */
  readonly handle: (request: Request) => Promise<Response>;
  /**
   * Runs `parts` (the requests of one changeset) in one transaction that every part finds as
   * its scope, after `prefetch` made the changeset's lookups in it; a throw rolls all back.
   * `inChangeset(db, tenantId, prefetch, parts)` is the one to pass.
   */
  readonly changeset: <T>(prefetch: (tx: Session) => Promise<ReadCache>, parts: () => Promise<T>) => Promise<T>;
  readonly tenantId: string;
}

/** headers of the batch request every part carries (the caller's credentials) */
const INHERITED = ["authorization"];

/** headers of the batch request a part carries unless it has its own (the version the client reads) */
const DEFAULTED = ["odata-maxversion"];

/** headers of a part's response worth passing on */
const KEPT = [
  "content-type",
  "etag",
  "location",
  "odata-version",
  "preference-applied",
  "retry-after",
  "www-authenticate",
];

/** the headers whose value may be `$<id>`, the ETag a preceding part answered */
const CONDITIONS = ["if-match", "if-none-match"];

class ChangesetFailed extends Error {
  constructor(readonly responses: BatchResponsePart[]) {
    super("changeset failed");
  }
}

const failedDependency = (part: BatchPart, message: string): BatchResponsePart => ({
  id: part.id,
  status: 424,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ error: { code: "FailedDependency", message } }),
  ...(part.atomicityGroup !== undefined && { atomicityGroup: part.atomicityGroup }),
});

/** the Guid in a created entity's Location, for `$id` references */
const guidOf = (location: string | undefined) => /\(([0-9a-f-]{36})\)$/i.exec(location ?? "")?.[1];

/** string values that are exactly `$<id>` of an earlier part become that part's Guid */
function substitute(value: unknown, created: ReadonlyMap<string, string>): unknown {
  if (typeof value === "string" && value.startsWith("$")) return created.get(value.slice(1)) ?? value;
  if (Array.isArray(value)) return value.map((v) => substitute(v, created));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, created)]));
  }
  return value;
}

/** the batch in `request`, parsed by its Content-Type */
async function readBatch(request: Request, bodyLimits: BodyLimits): Promise<ParsedBatch> {
  const contentType = request.headers.get("content-type") ?? "";
  return /^multipart\/mixed\b/i.test(contentType)
    ? parseMultipartBatch(await readBody(request, bodyLimits.maxBytes), contentType)
    : parseJsonBatch(await readJsonBody(request, bodyLimits));
}

/** answers `POST {basePath}/$batch` */
export async function runBatch(request: Request, options: BatchOptions): Promise<ODataResult> {
  if (currentScope()?.workflowId !== undefined) {
    throw new ServiceError(
      400,
      "NotSupported",
      "$batch is not available inside a workflow; send the steps one by one.",
    );
  }
  const { basePath, model } = options;
  const parsed = await readBatch(request, options.bodyLimits);
  const origin = new URL(request.url).origin;
  const fromBatch = (names: readonly string[]) =>
    names.flatMap((name) => {
      const value = request.headers.get(name);
      return value === null ? [] : [[name, value] as const];
    });
  const inherited = fromBatch(INHERITED);
  const defaulted = fromBatch(DEFAULTED);
  const locations = new Map<string, string>();
  const created = new Map<string, string>();
  const etags = new Map<string, string>();
  const responses = new Map<string, BatchResponsePart>();

  /** a part's URL under the base path: absolute, relative to the base path, or starting with `$<id>` */
  const resolvePath = (url: string): string => {
    // an absolute URL must name this service's own root (issue: a part is never sent elsewhere)
    const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(url)?.[0];
    if (absolute !== undefined && absolute.toLowerCase() !== origin.toLowerCase()) {
      throw new ServiceError(
        400,
        "InvalidBatch",
        `"${url}" names another service; a batch part is relative, or absolute under ${origin}${basePath}/.`,
      );
    }
    let path = absolute === undefined ? url : url.slice(absolute.length);
    if (path.startsWith(`${basePath}/`)) path = path.slice(basePath.length + 1);
    path = path.replace(/^\//, "");
    const ref = /^\$([^/?(]+)/.exec(path);
    if (ref) {
      const location = locations.get(ref[1]!);
      if (location === undefined)
        throw new ServiceError(400, "InvalidBatch", `"${url}" refers to $${ref[1]}, which created nothing.`);
      path = location.slice(basePath.length + 1) + path.slice(ref[0].length);
    }
    return path;
  };

  const runPart = async (part: BatchPart): Promise<BatchResponsePart> => {
    const failed = part.dependsOn.find((d) => {
      const r = responses.get(d) ?? [...responses.values()].find((x) => x.atomicityGroup === d && x.status >= 400);
      return r === undefined || r.status >= 400;
    });
    if (failed !== undefined) return failedDependency(part, `Request "${failed}" that this one depends on failed.`);
    let path: string;
    try {
      path = resolvePath(part.url);
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      return {
        id: part.id,
        status: 400,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(err.toJSON()),
      };
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(part.headers)) {
      if (INHERITED.includes(name) || name === "content-id") continue;
      const etag = CONDITIONS.includes(name) && value.startsWith("$") ? etags.get(value.slice(1)) : undefined;
      headers.set(name, etag ?? value);
    }
    for (const [name, value] of inherited) headers.set(name, value);
    for (const [name, value] of defaulted) if (!headers.has(name)) headers.set(name, value);
    let body: string | undefined;
    let parsedBody: { readonly value: unknown } | undefined;
    if (part.body !== undefined) {
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
      if (parsed.format === "json" && isJsonInUtf8(headers.get("content-type"))) {
        // parsed with the batch under the same rules (exact numbers, depth): the service takes it
        // as it is (a copy: substitute builds one) rather than parsing the text again; the text
        // still goes along for any other route that reads the body itself
        parsedBody = { value: substitute(part.body, created) };
        body = JSON.stringify(parsedBody.value);
      } else {
        const hasRefs = created.size > 0 && (part.bodyText ?? JSON.stringify(part.body)).includes('"$');
        body = hasRefs ? JSON.stringify(substitute(part.body, created)) : (part.bodyText ?? JSON.stringify(part.body));
      }
    }
    const partRequest = new Request(`${origin}${basePath}/${path}`, {
      method: part.method,
      headers,
      ...(body !== undefined && { body }),
    });
    const response = await options.handle(
      parsedBody === undefined ? partRequest : withParsedBody(partRequest, parsedBody.value),
    );
    const kept: Record<string, string> = {};
    for (const name of KEPT) {
      const value = response.headers.get(name);
      if (value !== null) kept[name] = value;
    }
    const text = await response.text();
    if (kept.etag) etags.set(part.id, kept.etag);
    if (kept.location) {
      locations.set(part.id, kept.location);
      const guid = guidOf(kept.location);
      if (guid) created.set(part.id, guid);
    }
    return {
      id: part.id,
      status: response.status,
      headers: kept,
      ...(text !== "" && { body: text }),
      ...(part.atomicityGroup !== undefined && { atomicityGroup: part.atomicityGroup }),
    };
  };

  /** the writes of a changeset whose target entity the URL names, for one prefetch */
  const writesOf = (parts: readonly BatchPart[]) =>
    parts.flatMap((p) => {
      if (p.body === undefined || p.url.includes("$")) return [];
      try {
        const path = resolveResource(model, resolvePath(p.url).split("?")[0]!);
        return path.kind === "collection" || path.kind === "entity" ? [{ entity: path.entity, body: p.body }] : [];
      } catch {
        return [];
      }
    });

  const parts = parsed.parts;
  for (let i = 0; i < parts.length; ) {
    const group = parts[i]!.atomicityGroup;
    if (group === undefined) {
      const part = parts[i++]!;
      responses.set(part.id, await runPart(part));
      continue;
    }
    const members: BatchPart[] = [];
    while (i < parts.length && parts[i]!.atomicityGroup === group) members.push(parts[i++]!);
    try {
      const done = await options.changeset(
        (tx) => prefetchReferences(tx, model, options.tenantId, writesOf(members)),
        async () => {
          const results: BatchResponsePart[] = [];
          for (const part of members) {
            const result = await runPart(part);
            results.push(result);
            // later parts of the changeset may depend on this one
            responses.set(result.id, result);
            if (result.status >= 400) throw new ChangesetFailed(results);
          }
          return results;
        },
      );
      for (const r of done) responses.set(r.id, r);
    } catch (err) {
      if (!(err instanceof ChangesetFailed)) throw err;
      // all or nothing: the failing part says why, the others that ran were rolled back
      const failure = err.responses.at(-1)!;
      for (const part of members) {
        responses.set(
          part.id,
          part.id === failure.id
            ? failure
            : failedDependency(part, `Rolled back: request "${failure.id}" of the same changeset failed.`),
        );
      }
      for (const part of members) {
        locations.delete(part.id);
        created.delete(part.id);
        etags.delete(part.id);
      }
    }
  }
  const ordered = parts.map((p) => responses.get(p.id)!);
  if (parsed.format === "json") return jsonResult(200, formatJsonBatchResponse(ordered));
  const multipart = formatMultipartBatchResponse(ordered, parsed);
  return { status: 200, headers: { "Content-Type": multipart.contentType }, body: multipart.body };
}
