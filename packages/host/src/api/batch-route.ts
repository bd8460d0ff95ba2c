/**
 * `POST /api/$batch` (spec 4.5, api-conventions: Batch): the OData 4.01 JSON format and the 4.0
 * multipart format. Every part is replayed through the app itself, so it passes authentication,
 * permissions, features, hooks, logic, save logic and natural-key resolution exactly as a
 * standalone request would. A changeset (atomicity group) runs in one transaction: the first
 * failing part rolls all of them back, and its parts' lookups are prefetched together.
 */
import { type Database, type Model, prefetchReferences, ServiceError } from "@bizdata/core";
import {
  type BatchPart,
  type BatchResponsePart,
  formatJsonBatchResponse,
  formatMultipartBatchResponse,
  type ParsedBatch,
  parseJsonBatch,
  parseMultipartBatch,
  parseResourcePath,
} from "@bizdata/odata";
import type { Context } from "hono";
import type { AuthVariables } from "../auth/authenticate.js";
import type { BodyLimits } from "../http/body-limits.js";
import { readBody } from "../http/read-body.js";
import { readJsonBody } from "../http/request-json.js";
import { currentWorkflow, inChangeset } from "./request-transaction.js";

type Fetch = (request: Request) => Promise<Response>;

/** headers of a part's response worth passing on */
const KEPT = ["content-type", "location", "odata-version", "preference-applied", "retry-after", "www-authenticate"];

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

export function batchRoute(db: Database, model: Model, bodyLimits: BodyLimits, fetch: Fetch) {
  return async (c: Context<{ Variables: AuthVariables }>) => {
    if (currentWorkflow() !== undefined) {
      throw new ServiceError(
        400,
        "NotSupported",
        "$batch is not available inside a workflow; send the steps one by one.",
      );
    }
    const contentType = c.req.header("content-type") ?? "";
    const parsed: ParsedBatch = /^multipart\/mixed\b/i.test(contentType)
      ? parseMultipartBatch(await readBody(c.req.raw, bodyLimits.maxBytes), contentType)
      : parseJsonBatch(await readJsonBody(c.req.raw, bodyLimits));
    const origin = new URL(c.req.url).origin;
    const authorization = c.req.header("authorization")!;
    const { tenantId } = c.get("principal");
    const locations = new Map<string, string>();
    const created = new Map<string, string>();
    const responses = new Map<string, BatchResponsePart>();

    const resolveUrl = (url: string): string => {
      let path = url
        .replace(/^https?:\/\/[^/]+/i, "")
        .replace(/^\/?api\//, "")
        .replace(/^\//, "");
      const ref = /^\$([^/?(]+)/.exec(path);
      if (ref) {
        const location = locations.get(ref[1]!);
        if (location === undefined)
          throw new ServiceError(400, "InvalidBatch", `"${url}" refers to $${ref[1]}, which created nothing.`);
        path = location.replace(/^\/api\//, "") + path.slice(ref[0].length);
      }
      return `${origin}/api/${path}`;
    };

    const runPart = async (part: BatchPart): Promise<BatchResponsePart> => {
      const failed = part.dependsOn.find((d) => {
        const r = responses.get(d) ?? [...responses.values()].find((x) => x.atomicityGroup === d && x.status >= 400);
        return r === undefined || r.status >= 400;
      });
      if (failed !== undefined) return failedDependency(part, `Request "${failed}" that this one depends on failed.`);
      let url: string;
      try {
        url = resolveUrl(part.url);
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
      for (const [name, value] of Object.entries(part.headers))
        if (name !== "authorization" && name !== "content-id") headers.set(name, value);
      headers.set("authorization", authorization);
      let body: string | undefined;
      if (part.body !== undefined) {
        const hasRefs = created.size > 0 && (part.bodyText ?? JSON.stringify(part.body)).includes('"$');
        body = hasRefs ? JSON.stringify(substitute(part.body, created)) : (part.bodyText ?? JSON.stringify(part.body));
        if (!headers.has("content-type")) headers.set("content-type", "application/json");
      }
      const response = await fetch(
        new Request(url, { method: part.method, headers, ...(body !== undefined && { body }) }),
      );
      const kept: Record<string, string> = {};
      for (const name of KEPT) {
        const value = response.headers.get(name);
        if (value !== null) kept[name] = value;
      }
      const text = await response.text();
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
          const path = parseResourcePath(
            resolveUrl(p.url)
              .slice(origin.length + 5)
              .split("?")[0]!,
          );
          const entity = path.kind === "method" ? undefined : model.entity(path.entity);
          return entity ? [{ entity, body: p.body }] : [];
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
        const done = await inChangeset(
          db,
          tenantId,
          (tx) => prefetchReferences(tx, model, tenantId, writesOf(members)),
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
        }
      }
    }
    const ordered = parts.map((p) => responses.get(p.id)!);
    if (parsed.format === "json")
      return c.body(formatJsonBatchResponse(ordered), 200, { "Content-Type": "application/json" });
    const multipart = formatMultipartBatchResponse(ordered, parsed);
    return c.body(multipart.body, 200, { "Content-Type": multipart.contentType });
  };
}
