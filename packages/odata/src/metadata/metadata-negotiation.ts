/**
 * Which `$metadata` a request gets. Format: `$format` (`xml`, `json`, or their media types) wins;
 * otherwise `Accept` chooses JSON only when it ranks `application/json` above XML, so a client
 * that accepts any type (as axios and browsers say) gets XML, the form every OData tool
 * reads. Version: 4.0 unless `OData-MaxVersion` admits 4.01, because SAP's generator reads any
 * Version but 4.0 as OData V2 and tools fetched with curl send no header.
 */
import { badRequest } from "@bizdata/core";
import type { EdmVersion } from "./edm.js";

export type MetadataFormat = "xml" | "json";

const FORMATS: Readonly<Record<string, MetadataFormat>> = {
  xml: "xml",
  "application/xml": "xml",
  json: "json",
  "application/json": "json",
};

/** the format `$format` names (its parameters ignored), else the one `Accept` prefers */
export function metadataFormat(format: string | undefined, accept: string | undefined): MetadataFormat {
  if (format !== undefined) {
    const named = FORMATS[format.split(";")[0]!.trim().toLowerCase()];
    if (named === undefined) {
      throw badRequest(
        "UnsupportedFormat",
        `$metadata is served as CSDL XML or JSON: use $format=xml or $format=json, not "${format}".`,
        "$format",
      );
    }
    return named;
  }
  if (accept === undefined) return "xml";
  return quality(accept, "application/json") > quality(accept, "application/xml") ? "json" : "xml";
}

/** the q of the most specific range in `accept` that matches `type` (RFC 9110 §12.5.1), 0 if none */
function quality(accept: string, type: string): number {
  const [major] = type.split("/");
  let best = { specificity: -1, q: 0 };
  for (const range of accept.split(",")) {
    const [media = "", ...params] = range.split(";").map((s) => s.trim().toLowerCase());
    const specificity = media === type ? 2 : media === `${major}/*` ? 1 : media === "*/*" ? 0 : -1;
    if (specificity <= best.specificity) continue;
    const q = params.find((p) => p.startsWith("q="));
    const value = q === undefined ? 1 : Number(q.slice(2));
    best = { specificity, q: Number.isFinite(value) ? value : 0 };
  }
  return best.q;
}

/**
 * The OData version to answer a request with, from its `OData-MaxVersion` (OData 4.01 Part 1
 * §8.2.7): 4.01 when the client admits it, 4.0 when it names an earlier version (there is none
 * below 4.0 to fall back to), and `otherwise` when it names none (or nothing readable). Data
 * responses default to 4.01; `$metadata` to 4.0 (see above).
 *
 * @example odataVersion(request.headers.get("odata-maxversion") ?? undefined, "4.01")
 */
export function odataVersion(maxVersion: string | undefined, otherwise: EdmVersion): EdmVersion {
  const match = /^\s*(\d+)\.(\d+)\s*$/.exec(maxVersion ?? "");
  if (match === null) return otherwise;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  return major > 4 || (major === 4 && minor >= 1) ? "4.01" : "4.0";
}

/** the version of `$metadata`: 4.01 when `OData-MaxVersion` is 4.01 or later, else 4.0 */
export const metadataVersion = (maxVersion: string | undefined): EdmVersion => odataVersion(maxVersion, "4.0");
