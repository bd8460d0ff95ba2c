/**
 * The answer to a request as plain data, and every rule about its shape in one place
 * (api-conventions: Reads, Writes, User prompts): the prompt envelope as an instance annotation,
 * the Guid-only body of a write without `$select`/`$expand`/`$compute`, `Location`,
 * `Prefer: return=minimal`, and the next link of a cut page. A host turns it into its own
 * framework's response.
 */
import type { PromptEnvelope } from "@bizdata/core";
import { systemQueryOption } from "../syntax/parse-query-options.js";
import { promptAnnotation } from "./request-scope.js";

export interface ODataResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON text, the number of a `$count` read, or nothing (204) */
  readonly body?: string;
}

const JSON_TYPE = { "Content-Type": "application/json" };

/** a JSON answer, with `Content-Type: application/json` */
export const jsonResult = (status: number, body: string, headers: Record<string, string> = {}): ODataResult => ({
  status,
  headers: { ...JSON_TYPE, ...headers },
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

/**
 * Adds the prompt envelope (spec 2.4) to a JSON object's text, as the annotation of the current
 * request scope (`@userprompts`, or `@workflow.userprompts` in a workflow step); left out when
 * empty. With `return=minimal` there is no body to carry it.
 */
export const withPrompts = (body: string | undefined, envelope: PromptEnvelope | undefined): string | undefined =>
  body === undefined || envelope === undefined
    ? body
    : `{"${promptAnnotation()}":${JSON.stringify(envelope)}${body === "{}" ? "}" : `,${body.slice(1)}`}`;

/** without `$select`, `$expand` or `$compute` a written record answers with its Guid alone */
export const isGuidOnly = (search: URLSearchParams): boolean =>
  ![...search.keys()].some((k) => ["$select", "$expand", "$compute"].includes(systemQueryOption(k) ?? ""));

/** the body of a written record without `$select`/`$expand`/`$compute` */
export const guidOnlyBody = (guid: string): string => `{"Guid":"${guid}"}`;

/** the address of a record, for `Location` (api-conventions: Create) */
export const recordUrl = (basePath: string, entity: string, guid: string): string => `${basePath}/${entity}(${guid})`;

/** the next page of a collection read at `path` (as the URL has it): the same options with `$skip` moved on */
export const nextLinkOf =
  (basePath: string, path: string, search: URLSearchParams) =>
  (skip: number): string => {
    // the client's `skip`/`$Skip` is replaced, not repeated
    const next = new URLSearchParams([...search].filter(([name]) => systemQueryOption(name) !== "$skip"));
    next.set("$skip", String(skip));
    return `${basePath}/${path}?${next}`;
  };

/**
 * A base path as every URL starts with it: a leading slash, no trailing one, `""` for the root.
 * @example normalizeBasePath("odata/v1/") === "/odata/v1"
 */
export function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.replace(/^\/+|\/+$/g, "");
  return trimmed === "" ? "" : `/${trimmed}`;
}
