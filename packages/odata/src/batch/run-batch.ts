/**
 * Runs a `$batch` (spec 4.5, api-conventions: Batch), in the OData 4.01 JSON format or the 4.0
 * multipart format. A part is a call of the service with the caller's permissions, made by the
 * host (`serve`), so each passes permissions, features, hooks, logic, save logic and natural-key
 * resolution exactly as a standalone request would; `$metadata` and the service document are
 * answered here. Nothing goes through the host's HTTP stack a second time. A changeset (atomicity
 * group) is one unit of work: one transaction, its natural-key lookups prefetched together, the
 * first failing part rolling all of them back while the others answer 424. `dependsOn` on a failed request answers 424 too, and
 * `$<id>` of an earlier part (at the start of a URL, or as a whole string value in a body) stands
 * for what it created, and as the whole of an `If-Match`/`If-None-Match` for the ETag it answered
 * (JSON Format 4.01 §19.3). A part's conditions are its own: a 412 fails that part, and in a
 * changeset the whole changeset.
 */
import {
  type AnyEntity,
  type Model,
  prefetchReferences,
  type ReadCache,
  ServiceError,
  type Session,
  type UnitOfWork,
} from "@bizdata/core";
import { parseJson } from "../json-body/parse-json.js";
import { readBody } from "../json-body/read-body.js";
import { isJsonInUtf8, readJsonBody, requireJsonInUtf8 } from "../json-body/request-json.js";
import { type BatchLimits, type BodyLimits, defaultBatchLimits } from "../limits.js";
import { describeService, describes } from "../metadata/service-description.js";
import { resolveResource } from "../read/read-planner.js";
import { utf8Length } from "../service/answer-size.js";
import { formatOptionOf, type ODataRequest, resourcePath, serviceRequest } from "../service/odata-request.js";
import { jsonResult, type ODataResult } from "../service/odata-result.js";
import { isServiceResource } from "../service/operation-import-path.js";
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
  /** parts, writes per changeset and bytes of all answers together; defaultBatchLimits when left out */
  readonly batchLimits?: BatchLimits;
  /**
   * Answers a part addressed to the service (an entity set or operation import of the model) as
   * a call of it, in the changeset's `unit` when the part is in one: the host adds what its
   * entity routes add (the caller's permissions, the request's database, the OData-Version), runs
   * a part that carries workflow headers as a step of that workflow, and answers an error as its
   * routes would. `headers` are for reading only: parts that send the same headers share one object.
   */
  readonly serve: (request: ODataRequest, headers: Headers, unit: UnitOfWork | undefined) => Promise<ODataResult>;
  /**
   * Runs `parts` (the requests of one changeset) in one unit of work that each part is served in,
   * after `prefetch` made the changeset's lookups in its transaction; a throw rolls all back.
   * `inChangeset(db, tenantId, prefetch, parts)` is the one to pass.
   */
  readonly changeset: <T>(
    prefetch: (tx: Session) => Promise<ReadCache>,
    parts: (unit: UnitOfWork) => Promise<T>,
  ) => Promise<T>;
  readonly tenantId: string;
  /** the tenant's features, which shape `$metadata` and the service document */
  readonly features: () => Promise<ReadonlySet<string>>;
  /** the service keeps a change log: `$metadata` says its sets track changes */
  readonly changeTracking?: boolean;
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
  "odata-entityid",
  "odata-version",
  "preference-applied",
  "retry-after",
  "www-authenticate",
  // a part that was a workflow step: the index its workflow expects next
  "workflow-next-index",
];

/** the headers whose value may be `$<id>`, the ETag a preceding part answered */
const CONDITIONS = ["if-match", "if-none-match"];

/** `$metadata` as a resource path, also with its `$` percent-encoded */

/** what a part answered */
type Answer = Pick<BatchResponsePart, "status" | "headers" | "body">;

/** the headers of a part's answer worth passing on (KEPT), lower-cased, from a lookup by lower-cased name */
function keptHeaders(get: (name: string) => string | null | undefined): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT) {
    const value = get(name);
    if (value !== null && value !== undefined) kept[name] = value;
  }
  return kept;
}

class ChangesetFailed extends Error {
  constructor(readonly responses: BatchResponsePart[]) {
    super("changeset failed");
  }
}

/** a part's answer that is `error` */
const failedPart = (part: BatchPart, error: ServiceError): BatchResponsePart => ({
  id: part.id,
  status: error.status,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(error.toJSON()),
  ...(part.atomicityGroup !== undefined && { atomicityGroup: part.atomicityGroup }),
});

/** a ServiceError as a part's result, as a host answers one (anything else is no part's to answer) */
const asResult = (error: unknown): ODataResult => {
  if (!(error instanceof ServiceError)) throw error;
  return {
    status: error.status,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(error.toJSON()),
  };
};

const failedDependency = (part: BatchPart, message: string): BatchResponsePart =>
  failedPart(part, new ServiceError("FailedDependency", message));

/** the Guid in a created entity's Location, for `$id` references */
const guidOf = (location: string | undefined) => /\(([0-9a-f-]{36})\)$/i.exec(location ?? "")?.[1];

/** a copy of a part's body in which string values that are exactly `$<id>` of an earlier part are that part's Guid */
function substitute(value: unknown, created: ReadonlyMap<string, string>): unknown {
  if (typeof value === "string") return value.startsWith("$") ? (created.get(value.slice(1)) ?? value) : value;
  if (Array.isArray(value)) return value.map((v) => substitute(v, created));
  if (value === null || typeof value !== "object") return value;
  // copied key by key (every part's body is, and entries would make an array per key); defined, not
  // assigned, so that a key named `__proto__` stays a property as JSON.parse made it
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const v = substitute((value as Record<string, unknown>)[key], created);
    if (key === "__proto__")
      Object.defineProperty(copy, key, { value: v, enumerable: true, writable: true, configurable: true });
    else copy[key] = v;
  }
  return copy;
}

/** the batch in `request`, parsed by its Content-Type */
async function readBatch(request: Request, bodyLimits: BodyLimits, batchLimits: BatchLimits): Promise<ParsedBatch> {
  const contentType = request.headers.get("content-type") ?? "";
  return /^multipart\/mixed\b/i.test(contentType)
    ? parseMultipartBatch(await readBody(request, bodyLimits.maxBytes), contentType, batchLimits)
    : parseJsonBatch(await readJsonBody(request, bodyLimits), batchLimits);
}

/** a part not run, or whose answer was dropped, because the batch's answers passed their budget */
const overBudget = (part: BatchPart, limit: number): BatchResponsePart =>
  failedPart(
    part,
    new ServiceError(
      "BatchTooLarge",
      `The answers of this batch passed the limit of ${limit} bytes; send this request and the ones after it in another batch, or ask for less.`,
    ),
  );

/** answers `POST {basePath}/$batch` */
export async function runBatch(request: Request, options: BatchOptions): Promise<ODataResult> {
  // a batch is not a step: its parts are, each naming its workflow
  if (request.headers.has("workflow-id")) {
    throw new ServiceError("NotSupported", "$batch is not available inside a workflow; send the steps one by one.");
  }
  const { basePath, model } = options;
  const batchLimits = options.batchLimits ?? defaultBatchLimits;
  const parsed = await readBatch(request, options.bodyLimits, batchLimits);
  /** bytes the parts' answers took so far; past the budget, the rest of the batch is not run */
  let spent = 0;
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
  const ids = new Set(parsed.parts.map((part) => part.id));

  /** a part's URL under the base path: absolute, relative to the base path, or starting with `$<id>` */
  const resolvePath = (url: string): string => {
    // an absolute URL must name this service's own root (issue: a part is never sent elsewhere)
    const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(url)?.[0];
    if (absolute !== undefined && absolute.toLowerCase() !== origin.toLowerCase()) {
      throw new ServiceError(
        "InvalidBatch",
        `"${url}" names another service; a batch part is relative, or absolute under ${origin}${basePath}/.`,
      );
    }
    let path = absolute === undefined ? url : url.slice(absolute.length);
    if (path.startsWith(`${basePath}/`)) path = path.slice(basePath.length + 1);
    path = path.replace(/^\//, "");
    const ref = /^\$([^/?(]+)/.exec(path);
    // `$<id>` of a part of the batch; any other `$…` is a resource of the service (`$metadata`),
    // as parsing decided (batch-rules.ts: a request id wins over a system resource)
    if (ref && ids.has(ref[1]!)) {
      const location = locations.get(ref[1]!);
      if (location === undefined)
        throw new ServiceError("InvalidBatch", `"${url}" refers to $${ref[1]}, which created nothing.`);
      path = location.slice(basePath.length + 1) + path.slice(ref[0].length);
    }
    return underServiceRoot(url, path);
  };

  /**
   * `path` with its dot segments resolved, as the host's router would resolve them, when it
   * stays under the service root and names an OData resource there: the service document,
   * `$metadata`, an entity set or an operation import. Anything else (`../metrics`, `auth/signin`,
   * `oauth/…`, `openapi.json`, a nested `$batch`) is a 400 for the part: a batch runs OData
   * requests only, never another route of the host in the caller's name.
   */
  const root = `${origin}${basePath}/`;
  const underServiceRoot = (url: string, path: string): string => {
    const resolved = new URL(path, root);
    if (!`${resolved.origin}${resolved.pathname}`.startsWith(root)) {
      throw new ServiceError(
        "InvalidBatch",
        `"${url}" resolves outside the service root ${basePath}/; a batch part addresses the service's resources only.`,
      );
    }
    const resource = resolved.pathname.slice(root.length - origin.length);
    if (describes(resource) === undefined && !isServiceResource(model, resource)) {
      throw new ServiceError(
        "InvalidBatch",
        `"${url}" is not a resource of the service; a batch part addresses an entity set, an operation import, $metadata or the service document.`,
      );
    }
    return resource + resolved.search;
  };

  /**
   * A part's request headers: its own (an `If-Match: $<id>` as the ETag that part answered), the
   * batch's credentials, and the defaults. Parts that send the same headers share one object,
   * which nothing changes once made: making one checks every value again, the caller's long
   * token too, and a changeset of 64 creates spent a twentieth of its time on that.
   */
  const partHeaders = new Map<string, Headers>();
  const headersOf = (part: BatchPart): Headers => {
    const own: [string, string][] = [];
    for (const [name, value] of Object.entries(part.headers)) {
      if (INHERITED.includes(name) || name === "content-id") continue;
      const etag = CONDITIONS.includes(name) && value.startsWith("$") ? etags.get(value.slice(1)) : undefined;
      own.push([name, etag ?? value]);
    }
    const key = JSON.stringify([own, part.body !== undefined]);
    const known = partHeaders.get(key);
    if (known !== undefined) return known;
    const headers = new Headers(own);
    for (const [name, value] of inherited) headers.set(name, value);
    for (const [name, value] of defaulted) if (!headers.has(name)) headers.set(name, value);
    if (part.body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
    partHeaders.set(key, headers);
    return headers;
  };

  /** answers `part`; inside a changeset, in its `unit` */
  const runPart = async (part: BatchPart, unit?: UnitOfWork): Promise<BatchResponsePart> => {
    const failed = part.dependsOn.find((d) => {
      const r = responses.get(d) ?? [...responses.values()].find((x) => x.atomicityGroup === d && x.status >= 400);
      return r === undefined || r.status >= 400;
    });
    if (failed !== undefined) return failedDependency(part, `Request "${failed}" that this one depends on failed.`);
    if (spent > batchLimits.maxAnswerBytes) return overBudget(part, batchLimits.maxAnswerBytes);
    let path: string;
    try {
      path = resolvePath(part.url);
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      return {
        id: part.id,
        status: err.status,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(err.toJSON()),
      };
    }
    const headers = headersOf(part);
    const url = `${origin}${basePath}/${path}`;
    const answer = await serve(part, url, headers, unit);
    spent += answer.body === undefined ? 0 : utf8Length(answer.body);
    // the part that passes the budget is not answered either: the batch stays within it
    if (spent > batchLimits.maxAnswerBytes) return overBudget(part, batchLimits.maxAnswerBytes);
    if (answer.headers.etag) etags.set(part.id, answer.headers.etag);
    if (answer.headers.location) {
      locations.set(part.id, answer.headers.location);
      const guid = guidOf(answer.headers.location);
      if (guid) created.set(part.id, guid);
    }
    return {
      id: part.id,
      ...answer,
      ...(part.atomicityGroup !== undefined && { atomicityGroup: part.atomicityGroup }),
    };
  };

  /** whether the part's body was parsed with the batch under the service's rules (exact numbers, depth) */
  const parsedWithBatch = (headers: Headers) => parsed.format === "json" && isJsonInUtf8(headers.get("content-type"));

  /** the part's body text as sent, with `$<id>` of earlier parts replaced */
  const bodyText = (part: BatchPart): string => {
    const text = part.bodyText ?? JSON.stringify(part.body);
    return created.size > 0 && text.includes('"$') ? JSON.stringify(substitute(part.body, created)) : text;
  };

  /** a part as a call of the service, or its description: no sub-request, no second parse of its body */
  const serve = async (
    part: BatchPart,
    url: string,
    headers: Headers,
    unit: UnitOfWork | undefined,
  ): Promise<Answer> => {
    let body: (() => Promise<unknown>) | undefined;
    if (part.body !== undefined) {
      if (parsedWithBatch(headers)) {
        // a copy: substitute builds one
        const value = substitute(part.body, created);
        body = async () => value;
      } else {
        const text = bodyText(part);
        body = async () => {
          requireJsonInUtf8(headers.get("content-type"));
          return parseJson(text, options.bodyLimits);
        };
      }
    }
    const result = await answerPart(part.method, new URL(url), headers, body, unit).catch(asResult);
    const byName = new Map(Object.entries(result.headers).map(([name, value]) => [name.toLowerCase(), value]));
    return {
      status: result.status,
      headers: keptHeaders((name) => byName.get(name)),
      ...(result.body !== undefined && result.body !== "" && { body: result.body }),
    };
  };

  /** the service's answer to a part, or for `$metadata` and the service document their own */
  const answerPart = async (
    method: string,
    url: URL,
    headers: Headers,
    body: (() => Promise<unknown>) | undefined,
    unit: UnitOfWork | undefined,
  ): Promise<ODataResult> => {
    const what = describes(resourcePath(url.pathname, basePath));
    if (what === undefined) {
      const request = serviceRequest(method, url, headers, body, { basePath, tenantId: options.tenantId });
      return options.serve(request, headers, unit);
    }
    if (method !== "GET") {
      const name = what === "service" ? "The service document" : "$metadata";
      throw new ServiceError("MethodNotAllowed", `${name} is read with GET.`);
    }
    return describeService(model, what, {
      format: formatOptionOf(url.searchParams),
      accept: headers.get("accept") ?? undefined,
      maxVersion: headers.get("odata-maxversion") ?? undefined,
      features: await options.features(),
      ...(options.changeTracking !== undefined && { changeTracking: options.changeTracking }),
    });
  };

  /** the entity a part's URL writes to, if it names one (the same URLs recur: each is bound once) */
  const targets = new Map<string, AnyEntity | undefined>();
  const targetOf = (url: string): AnyEntity | undefined => {
    if (!targets.has(url)) {
      let entity: AnyEntity | undefined;
      try {
        const path = resolveResource(model, resolvePath(url).split("?")[0]!);
        if (path.kind === "collection" || path.kind === "entity") entity = path.entity;
      } catch {}
      targets.set(url, entity);
    }
    return targets.get(url);
  };

  /** the writes of a changeset whose target entity the URL names, for one prefetch */
  const writesOf = (parts: readonly BatchPart[]) =>
    parts.flatMap((p) => {
      const entity = p.body === undefined || p.url.includes("$") ? undefined : targetOf(p.url);
      return entity === undefined ? [] : [{ entity, body: p.body }];
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
        async (unit) => {
          const results: BatchResponsePart[] = [];
          for (const part of members) {
            const result = await runPart(part, unit);
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
