/**
 * The answer to a request as plain data, and every rule about its shape in one place
 * (api-conventions: Reads, Writes, User prompts; OData JSON Format 4.01 §4): the context URL
 * first, then the prompt envelope as an instance annotation, then the payload; the Content-Type
 * that names the metadata level; the ETag header of a single record; `Location`,
 * `Prefer: return=minimal`, and the next link of a cut page. A host turns it into its own
 * framework's response.
 */
import { type PromptEnvelope, promptAnnotation, type UnitOfWork } from "@bizdata/core";
import { etagOf } from "../conditional/entity-tags.js";
import { systemQueryOption } from "../syntax/parse-query-options.js";
import { queryString } from "../syntax/query-parameters.js";
import type { ODataRequest } from "./odata-request.js";
import { jsonContentType } from "./response-format.js";

export interface ODataResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON text, the number of a `$count` read, or nothing (204, 304) */
  readonly body?: string;
}

/** a JSON answer that is no OData payload (workflow state, a `$batch` envelope), as plain `application/json` */
export const jsonResult = (status: number, body: string, headers: Record<string, string> = {}): ODataResult => ({
  status,
  headers: { "Content-Type": "application/json", ...headers },
  body,
});

/** the number of a `$count` read, as `text/plain` */
export const textResult = (body: string): ODataResult => ({
  status: 200,
  headers: { "Content-Type": "text/plain" },
  body,
});

/** 204 without a body */
export const noContent = (headers: Record<string, string> = {}): ODataResult => ({ status: 204, headers });

/** `return=minimal` answered: 204 saying so (api-conventions: Writes) */
export const minimalResult = (headers: Record<string, string> = {}): ODataResult =>
  noContent({ ...headers, "Preference-Applied": "return=minimal" });

/** a read of a record the client has at its current version (If-None-Match): 304, no body */
export const notModified = (version: string): ODataResult => ({ status: 304, headers: { ETag: etagOf(version) } });

/** the `ETag` header of a record at `version` */
export const etagHeader = (version: string): Record<string, string> => ({ ETag: etagOf(version) });

/** what goes before a payload's own members */
export interface PayloadControl {
  /** the context URL's fragment (context-url.ts); written unless the client asked for no metadata */
  readonly context?: string;
  /** the prompt envelope (spec 2.4), left out when there is none */
  readonly prompts?: PromptEnvelope | undefined;
}

/**
 * A JSON payload (an object's text) answered with its control information: `@odata.context`
 * first (JSON Format §4.5.1, absent at `metadata=none`), then the prompt envelope under the
 * unit of work's annotation (`@userprompts`, or `@workflow.userprompts` in a workflow step),
 * with the Content-Type saying the metadata level.
 */
export function payloadResult(
  service: { readonly basePath: string; readonly unit?: UnitOfWork | undefined },
  request: Pick<ODataRequest, "metadata" | "ieee754Compatible">,
  status: number,
  body: string,
  control: PayloadControl,
  headers: Record<string, string> = {},
): ODataResult {
  const metadata = request.metadata ?? "minimal";
  const leading: string[] = [];
  if (control.context !== undefined && metadata !== "none") {
    leading.push(`"@odata.context":${JSON.stringify(`${service.basePath}/$metadata#${control.context}`)}`);
  }
  if (control.prompts !== undefined)
    leading.push(`"${promptAnnotation(service.unit)}":${JSON.stringify(control.prompts)}`);
  const text = leading.length === 0 ? body : `{${leading.join(",")}${body === "{}" ? "}" : `,${body.slice(1)}`}`;
  const contentType = jsonContentType({ metadata, ieee754Compatible: request.ieee754Compatible ?? false });
  return { status, headers: { "Content-Type": contentType, ...headers }, body: text };
}

/** the address of a record, for `Location` (api-conventions: Create) */
export const recordUrl = (basePath: string, entity: string, guid: string): string => `${basePath}/${entity}(${guid})`;

/**
 * The next page of a collection read at `path` (as the URL has it): the same options with `$skip`
 * moved on (and the client's `$format`, which is not among the options the read parsed)
 */
export const nextLinkOf =
  (basePath: string, path: string, request: Pick<ODataRequest, "search" | "formatOption">) =>
  (skip: number): string => {
    // the client's `skip`/`$Skip` is replaced, not repeated
    const next = new URLSearchParams([...request.search].filter(([name]) => systemQueryOption(name) !== "$skip"));
    next.set("$skip", String(skip));
    if (request.formatOption !== undefined) next.set("$format", request.formatOption);
    return `${basePath}/${path}?${queryString(next)}`;
  };

/**
 * A base path as every URL starts with it: a leading slash, no trailing one, `""` for the root.
 * @example normalizeBasePath("odata/v1/") === "/odata/v1"
 */
export function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.replace(/^\/+|\/+$/g, "");
  return trimmed === "" ? "" : `/${trimmed}`;
}
