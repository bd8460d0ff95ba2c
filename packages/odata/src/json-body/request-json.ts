import { ServiceError } from "@bizdata/core";
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
  const contentType = request.headers.get("content-type");
  const media = contentType === null ? undefined : parseMediaType(contentType);
  const charset = media?.parameters.get("charset")?.toLowerCase();
  if (media?.essence !== "application/json" || (charset !== undefined && charset !== "utf-8")) {
    throw new ServiceError(
      415,
      "UnsupportedMediaType",
      "The request body must be sent as application/json in UTF-8.",
      "Content-Type",
    );
  }
  return parseJson(await readBody(request, limits.maxBytes), limits);
}

/**
 * Whether the client asked for decimals as JSON strings (OData IEEE754Compatible=true) in
 * Content-Type or in any media range of Accept; parameter name and value are case-insensitive.
 */
export function isIeee754Compatible(headers: Headers): boolean {
  const mediaTypes = [headers.get("content-type") ?? "", ...(headers.get("accept") ?? "").split(",")];
  return mediaTypes.some(
    (value) => parseMediaType(value).parameters.get("ieee754compatible")?.toLowerCase() === "true",
  );
}

/**
 * Splits `type/subtype; name=value; …` into the lower-cased type and the parameters (names
 * lower-cased, values unquoted). Quoted values containing ';' or ',' are not supported: no
 * parameter the service reads needs them.
 */
function parseMediaType(value: string): { essence: string; parameters: Map<string, string> } {
  const [essence = "", ...rest] = value.split(";");
  const parameters = new Map<string, string>();
  for (const parameter of rest) {
    const eq = parameter.indexOf("=");
    if (eq < 0) continue;
    const raw = parameter.slice(eq + 1).trim();
    const unquoted = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
    parameters.set(parameter.slice(0, eq).trim().toLowerCase(), unquoted);
  }
  return { essence: essence.trim().toLowerCase(), parameters };
}
