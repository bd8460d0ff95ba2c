/**
 * A request to the OData service as plain data, whatever framework received it: the verb, the
 * resource path and its query options, the tenant, the body read on demand, the client's
 * preferences, and the caller's permissions as a check the service calls before it reads or
 * writes anything. `odataRequestOf` builds one from a fetch `Request`.
 */
import type { ChangeAuthor, Database } from "@bizdata/core";
import type { MetadataLevel } from "../compile/control-info.js";
import { isIeee754Compatible, readJsonBody } from "../json-body/request-json.js";
import type { BodyLimits } from "../limits.js";
import { queryParameters } from "../syntax/query-parameters.js";
import { responseFormat } from "./response-format.js";

/** what the service asks permission for, before any record is read or written */
export type Access =
  /** every entity whose records the read returns (its `$expand` included) */
  | { readonly kind: "read"; readonly entities: readonly string[] }
  /** a record's change history (record-history.ts) */
  | { readonly kind: "history"; readonly entity: string }
  | { readonly kind: "create" | "update" | "delete"; readonly entity: string }
  | { readonly kind: "call"; readonly entity: string; readonly method: string; readonly type: "read" | "modify" };

export interface ODataRequest {
  /** `GET`, `POST`, `PATCH` or `DELETE` */
  readonly method: string;
  /**
   * the resource path after the base path as the URL has it, percent-encoded (a `%2F` in a key is
   * data, a `/` separates segments): `Product`, `Product(<guid>)`, `Product/$count`,
   * `SalesOrder(<guid>)/Details`, `SalesOrder/bizdata.GetOpenOrders()`
   */
  readonly path: string;
  /** the query options (and a method's parameters), `$format` aside */
  readonly search: URLSearchParams;
  /** the client's `$format`, as given: it chose `metadata`, and next links keep it */
  readonly formatOption?: string;
  readonly tenantId: string;
  /**
   * The body parsed as JSON (readJsonBody: exact numbers, bounded size and depth), read only by
   * an operation that takes one; leave it out when the request carries no body.
   */
  readonly body?: () => Promise<unknown>;
  /**
   * A Content-Type was sent with no body (`Content-Length: 0`): a write that needs a body says
   * the body is empty (400 EmptyBody) rather than that its type is missing (415).
   */
  readonly emptyBody?: boolean;
  /**
   * `Prefer: return=minimal` or `return=representation` (returnPreferenceOf): what a create or
   * update answers with instead of the entity shaped by `$select`/`$expand` (api-conventions: Writes)
   */
  readonly returnPreference?: ReturnPreference;
  /** decimals as JSON strings both ways (IEEE754Compatible=true) */
  readonly ieee754Compatible?: boolean;
  /** the control information the answer carries (response-format.ts); default minimal */
  readonly metadata?: MetadataLevel;
  /** `If-Match` as sent: a write (or a read) proceeds only while the record is at a version it names */
  readonly ifMatch?: string;
  /** `If-None-Match` as sent: a read of a record at a version it names answers 304 */
  readonly ifNoneMatch?: string;
  /** throws (typically a 403 ServiceError) when the caller may not make `access` */
  readonly authorize?: (access: Access) => void;
  /**
   * The database this request's work runs on, when not the service's: a host's wrapper around
   * it, e.g. one that counts the request's statements.
   */
  readonly db?: Database;
  /** who makes the request's changes (the caller, the request id): what their change log rows say */
  readonly author?: ChangeAuthor;
  /** `Prefer: odata.track-changes` (track-changes.ts): a collection read answers with a delta link */
  readonly trackChanges?: boolean;
}

/** the `return` preference of OData 4.01 §8.2.8.7: no body (204), or the whole entity */
export type ReturnPreference = "minimal" | "representation";

/**
 * The `return` preference of a `Prefer` header (RFC 7240 §2: preferences separated by commas,
 * each a token with an optional value and parameters after `;`, names in any case, only the
 * first of a repeated one considered); undefined when there is none, or its value is neither.
 */
export function returnPreferenceOf(prefer: string | null | undefined): ReturnPreference | undefined {
  for (const preference of (prefer ?? "").split(",")) {
    const [token = "", value = ""] = preference
      .split(";", 1)[0]!
      .split("=", 2)
      .map((part) => part.trim());
    if (token.toLowerCase() !== "return") continue;
    const unquoted = value.replace(/^"(.*)"$/, "$1").toLowerCase();
    return unquoted === "minimal" || unquoted === "representation" ? unquoted : undefined;
  }
  return undefined;
}

/** `odata.track-changes` in a `Prefer` header (OData 4.01 Protocol §8.2.8.7), with or without the `odata.` prefix */
export const wantsChanges = (prefer: string | null | undefined): boolean =>
  /(^|[,;\s])(odata\.)?track-changes\b/i.test(prefer ?? "");

/**
 * Whether a request carries a JSON body to read: one with a Content-Type and not declared
 * empty. A POST without one (a method call with its parameters in the URL) has none.
 */
export const hasBody = (headers: Headers): boolean =>
  headers.get("content-type") !== null && headers.get("content-length") !== "0";

/**
 * The service request for a fetch `Request` under `basePath` (`/api`), for hosts built on the
 * fetch API (Hono, Bun, Deno, workers).
 *
 * @example
 * const result = await service.handle(odataRequestOf(request, { basePath: "/api", tenantId, bodyLimits }));
 */
export function odataRequestOf(
  request: Request,
  options: ServiceRequestOptions & { readonly bodyLimits: BodyLimits },
): ODataRequest {
  const body = hasBody(request.headers) ? () => readJsonBody(request, options.bodyLimits) : undefined;
  return serviceRequest(request.method, new URL(request.url), request.headers, body, options);
}

export interface ServiceRequestOptions {
  readonly basePath: string;
  readonly tenantId: string;
  readonly authorize?: (access: Access) => void;
  readonly db?: Database;
  readonly author?: ChangeAuthor;
}

/**
 * The service request for a verb, URL and headers, with `body` reading its JSON body (none when
 * it carries none): what odataRequestOf makes of a fetch `Request`, and a `$batch` part of its
 * parsed form, so both are read by the same rules.
 */
export function serviceRequest(
  method: string,
  url: URL,
  headers: Headers,
  body: (() => Promise<unknown>) | undefined,
  options: ServiceRequestOptions,
): ODataRequest {
  // `$search` and `$expand` keep `%3B` and `%25` for the parser (queryParameters)
  const query = queryParameters(url.search);
  const formatName = formatOptionName(query);
  const formatOption = formatOptionOf(query);
  const format = responseFormat(formatOption, headers.get("accept"), isIeee754Compatible(headers));
  const ifMatch = headers.get("if-match");
  const ifNoneMatch = headers.get("if-none-match");
  return {
    // HEAD is GET without the content (RFC 9110 §9.3.2), and clients send it as a probe: the SAP
    // Cloud SDK before every write (its CSRF token fetch); the host's framework drops the body
    method: method === "HEAD" ? "GET" : method,
    path: resourcePath(url.pathname, options.basePath),
    search:
      formatName === undefined ? query : new URLSearchParams([...query].filter(([name]) => !isFormatOption(name))),
    ...(formatOption !== undefined && { formatOption }),
    tenantId: options.tenantId,
    ...(body !== undefined ? { body } : headers.get("content-type") !== null && { emptyBody: true }),
    ...returnPreferenceMember(headers.get("prefer")),
    ...(wantsChanges(headers.get("prefer")) && { trackChanges: true }),
    ieee754Compatible: format.ieee754Compatible,
    metadata: format.metadata,
    ...(ifMatch !== null && { ifMatch }),
    ...(ifNoneMatch !== null && { ifNoneMatch }),
    ...(options.authorize && { authorize: options.authorize }),
    ...(options.db && { db: options.db }),
    ...(options.author && { author: options.author }),
  };
}

const returnPreferenceMember = (prefer: string | null) => {
  const returnPreference = returnPreferenceOf(prefer);
  return returnPreference === undefined ? {} : { returnPreference };
};

/** `$format`, with or without `$`, in any case (OData 4.01 §11.2.1): answered here, not parsed as a query option */
const isFormatOption = (name: string) => name.replace(/^\$/, "").toLowerCase() === "format";

/** the name `$format` has in `search`, if it is there */
const formatOptionName = (search: URLSearchParams): string | undefined => {
  for (const name of search.keys()) if (isFormatOption(name)) return name;
  return undefined;
};

/** the value of `$format` in `search` (any spelling), if given */
export const formatOptionOf = (search: URLSearchParams): string | undefined => {
  const name = formatOptionName(search);
  return name === undefined ? undefined : (search.get(name) ?? undefined);
};

/**
 * The resource path of a URL path under `basePath`, still percent-encoded: the parser splits it
 * at `/` before it decodes each segment (parseResourcePath).
 */
export const resourcePath = (pathname: string, basePath: string): string =>
  pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length + 1) : pathname.replace(/^\//, "");
