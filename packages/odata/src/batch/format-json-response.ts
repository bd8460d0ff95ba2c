/**
 * The OData JSON batch response (JSON Format 4.01 §19, "Batch Response"):
 * `{"responses":[{"id","status","headers","body","atomicityGroup"}]}`. A JSON body is embedded
 * as the JSON value it already is (its text copied, never re-serialized, so exact numbers stay
 * exact); any other body becomes a JSON string.
 */
import type { BatchResponsePart } from "./batch-types.js";
import { parseMediaType } from "./headers.js";

export function formatJsonBatchResponse(parts: readonly BatchResponsePart[]): string {
  return `{"responses":[${parts.map(formatPart).join(",")}]}`;
}

function formatPart(part: BatchResponsePart): string {
  let text = `{"id":${JSON.stringify(part.id)},"status":${part.status},"headers":${JSON.stringify(part.headers)}`;
  if (part.body !== undefined && part.body !== "") {
    text += `,"body":${isJson(part.headers) ? part.body : JSON.stringify(part.body)}`;
  }
  if (part.atomicityGroup !== undefined) text += `,"atomicityGroup":${JSON.stringify(part.atomicityGroup)}`;
  return `${text}}`;
}

/** `application/json` or a `+json` subtype, with any parameters (JSON 4.01 §19). */
function isJson(headers: Readonly<Record<string, string>>): boolean {
  const contentType = Object.entries(headers).find(([name]) => name.toLowerCase() === "content-type")?.[1];
  const type = contentType === undefined ? undefined : parseMediaType(contentType)?.type;
  return type !== undefined && /^application\/(?:[^/]*\+)?json$/.test(type);
}
