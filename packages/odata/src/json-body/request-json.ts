import { ServiceError } from "@bizdata/core";
import { parseMediaType } from "../batch/headers.js";
import type { BodyLimits } from "../limits.js";
import { parseJson } from "./parse-json.js";
import { readBody } from "./read-body.js";

/**
 * Reads and parses a JSON request body within `limits` (see readBody and parseJson for the
 * errors). The Content-Type is checked first, so a body of the wrong type is never read: it must
 * be application/json, with any parameters (OData clients send
 * `application/json;odata.metadata=minimal;IEEE754Compatible=true`), and a charset, if given,
 * must be UTF-8 because the body is decoded as UTF-8. Otherwise 415 UnsupportedMediaType.
 */
export async function readJsonBody(request: Request, limits: BodyLimits): Promise<unknown> {
  requireJsonInUtf8(request.headers.get("content-type"));
  const handed = parsedBodies.get(request);
  if (handed !== undefined) return handed.body;
  return parseJson(await readBody(request, limits.maxBytes), limits);
}

/** throws 415 UnsupportedMediaType unless `contentType` is JSON in UTF-8 (isJsonInUtf8) */
export function requireJsonInUtf8(contentType: string | null): void {
  if (!isJsonInUtf8(contentType)) {
    throw new ServiceError(
      "UnsupportedMediaType",
      "The request body must be sent as application/json in UTF-8.",
      "Content-Type",
    );
  }
}

/** whether a Content-Type is application/json (any parameters) with no charset other than UTF-8 */
export function isJsonInUtf8(contentType: string | null): boolean {
  const media = contentType === null ? undefined : parseMediaType(contentType);
  const charset = media?.parameters.get("charset")?.toLowerCase();
  return media?.type === "application/json" && (charset === undefined || charset === "utf-8");
}

/** bodies handed over already parsed (withParsedBody), by the request that carries them */
const parsedBodies = new WeakMap<Request, { readonly body: unknown }>();

/**
 * `request` with the parsed form of its JSON body, parsed already under the same rules (a
 * JSON-format `$batch` part's, parsed with the batch): readJsonBody returns it instead of reading
 * and parsing the request's body a second time. The Content-Type is checked all the same.
 */
export function withParsedBody(request: Request, body: unknown): Request {
  parsedBodies.set(request, { body });
  return request;
}

/** the parameter's name, which a header that asks for it must hold somewhere (in any case) */
const MENTIONS_IEEE754 = /ieee754compatible/i;

/**
 * Whether the client asked for decimals as JSON strings (OData IEEE754Compatible=true) in
 * Content-Type or in any media range of Accept; parameter name and value are case-insensitive.
 */
export function isIeee754Compatible(headers: Headers): boolean {
  const contentType = headers.get("content-type") ?? "";
  const accept = headers.get("accept") ?? "";
  // nearly every request asks nothing of the kind: no header to parse then
  if (!MENTIONS_IEEE754.test(contentType) && !MENTIONS_IEEE754.test(accept)) return false;
  return [contentType, ...accept.split(",")].some(
    (value) => parseMediaType(value)?.parameters.get("ieee754compatible")?.toLowerCase() === "true",
  );
}
