/**
 * The JSON a client asked for (OData JSON Format 4.01 §3): how much control information
 * (`metadata=none|minimal|full`, 4.0 spelling `odata.metadata`; default minimal, §3.1) and
 * whether decimals come as strings (IEEE754Compatible, §3.2). `$format` wins over `Accept`
 * (§3); among `Accept`'s JSON ranges the preferred one decides. A JSON answer's Content-Type
 * says what it carries (§4.1).
 */
import { BoundedMap, ServiceError } from "@bizdata/core";
import { parseMediaType } from "../batch/headers.js";
import type { MetadataLevel } from "../compile/control-info.js";

export interface ResponseFormat {
  readonly metadata: MetadataLevel;
  readonly ieee754Compatible: boolean;
}

const LEVELS: readonly string[] = ["none", "minimal", "full"] satisfies MetadataLevel[];

const notAcceptable = (message: string, target: string) => new ServiceError("NotAcceptable", message, target);

/** the level a media type's parameters ask for, in either spelling; undefined when they ask none */
function levelOf(parameters: ReadonlyMap<string, string>, target: string): MetadataLevel | undefined {
  const asked = parameters.get("odata.metadata") ?? parameters.get("metadata");
  if (asked === undefined) return undefined;
  const level = asked.toLowerCase();
  if (!LEVELS.includes(level)) {
    throw notAcceptable(`odata.metadata=${asked} is not a metadata level: use none, minimal or full.`, target);
  }
  return level as MetadataLevel;
}

const ieee754 = (parameters: ReadonlyMap<string, string>) =>
  parameters.get("ieee754compatible")?.toLowerCase() === "true";

/** `$format`: `json`, or `application/json` with parameters */
function fromFormatOption(format: string): Partial<ResponseFormat> {
  if (format.trim().toLowerCase() === "json") return {};
  const media = parseMediaType(format);
  if (media?.type !== "application/json") {
    throw notAcceptable(
      `This service answers in JSON: use $format=json or $format=application/json, not "${format}".`,
      "$format",
    );
  }
  const metadata = levelOf(media.parameters, "$format");
  return { ...(metadata && { metadata }), ...(ieee754(media.parameters) && { ieee754Compatible: true }) };
}

/** what an `Accept` asks: the `application/json` range with the highest q (the first of equals) */
function parseAccept(accept: string): Partial<ResponseFormat> {
  let best: { q: number; parameters: ReadonlyMap<string, string> } | undefined;
  for (const range of accept.split(",")) {
    const media = parseMediaType(range);
    if (media?.type !== "application/json") continue;
    const q = Number(media.parameters.get("q") ?? "1");
    if (!(q > 0) || (best !== undefined && q <= best.q)) continue;
    best = { q, parameters: media.parameters };
  }
  const metadata = best && levelOf(best.parameters, "Accept");
  return metadata ? { metadata } : {};
}

/** `Accept` values answered (a client sends the same one every time) */
const accepts = new BoundedMap<string, Partial<ResponseFormat>>(200);

/** parseAccept, once per `Accept` value (one that is refused is not kept: it throws every time) */
const fromAccept = (accept: string): Partial<ResponseFormat> => accepts.getOrMake(accept, parseAccept);

/**
 * What to answer `format` (the `$format` option, `$` optional and any case) and the headers
 * (`Accept`; IEEE754Compatible also from `Content-Type`, isIeee754Compatible).
 * @throws ServiceError 406 NotAcceptable for a format or metadata level the service does not serve
 */
export function responseFormat(
  format: string | undefined,
  accept: string | null,
  ieee754Compatible: boolean,
): ResponseFormat {
  const asked = format !== undefined ? fromFormatOption(format) : fromAccept(accept ?? "");
  return {
    metadata: asked.metadata ?? "minimal",
    ieee754Compatible: ieee754Compatible || asked.ieee754Compatible === true,
  };
}

/** the Content-Type of a JSON answer in `format`, in the spelling of the `@odata.` names it carries */
export const jsonContentType = (format: ResponseFormat): string =>
  `application/json;odata.metadata=${format.metadata}${format.ieee754Compatible ? ";IEEE754Compatible=true" : ""}`;

/** minimal control information, decimals as numbers: what a request that asks nothing gets */
export const DEFAULT_FORMAT: ResponseFormat = { metadata: "minimal", ieee754Compatible: false };
