/**
 * The OData JSON batch request (JSON Format 4.01 §19):
 * `{"requests":[{"id","method","url","headers","body","atomicityGroup","dependsOn"}]}`,
 * already parsed from JSON by the host.
 */
import { type BatchLimits, defaultBatchLimits } from "../limits.js";
import { invalidBatch, partLabel, quote, tooManyParts } from "./batch-errors.js";
import { batchMethod, checkLimits, type DraftPart, finishBatch, requestIdPattern } from "./batch-rules.js";
import type { ParsedBatch } from "./batch-types.js";
import { headerRecord, isHeaderField } from "./headers.js";

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function parseJsonBatch(body: unknown, limits: BatchLimits = defaultBatchLimits): ParsedBatch {
  const requests = isObject(body) ? body.requests : undefined;
  if (!Array.isArray(requests)) {
    throw invalidBatch("The batch", 'it must be a JSON object with a "requests" array');
  }
  if (requests.length > limits.maxBatchParts) throw tooManyParts(limits);
  const drafts = requests.map((request: unknown, index) => readRequest(request, index + 1));
  checkLimits(drafts, limits);
  return finishBatch("json", drafts);
}

function readRequest(request: unknown, number: number): DraftPart {
  if (!isObject(request)) throw invalidBatch(partLabel(number), "a request must be a JSON object");
  const id = optionalId(request, "id", partLabel(number));
  const where = partLabel(number, id);
  const { method, url, body } = request;
  if (typeof method !== "string") throw invalidBatch(where, '"method" is missing or not a string');
  if (typeof url !== "string" || url === "") throw invalidBatch(where, '"url" is missing or not a non-empty string');
  const group = optionalId(request, "atomicityGroup", where);
  return {
    id,
    // JSON 4.01 §19: the method literals are case-insensitive
    method: batchMethod(method.toUpperCase(), where),
    url,
    headers: readHeaders(request.headers, where),
    // JSON 4.01 §19: a null body is the same as none
    ...(body === undefined || body === null ? {} : { body }),
    ...(group === undefined ? {} : { atomicityGroup: group }),
    dependsOn: readDependsOn(request.dependsOn, where),
  };
}

/** `id` and `atomicityGroup` follow OData ABNF `request-id` (JSON 4.01 §19). */
function optionalId(request: Record<string, unknown>, name: string, where: string): string | undefined {
  const value = request[name];
  if (value === undefined) return undefined;
  if (typeof value === "string" && requestIdPattern.test(value)) return value;
  throw invalidBatch(where, `"${name}" must be a string of letters, digits, "-", ".", "_" or "~"`);
}

function readHeaders(headers: unknown, where: string): Record<string, string> {
  if (headers === undefined) return {};
  if (!isObject(headers)) throw invalidBatch(where, '"headers" must be an object of string values');
  const entries = Object.entries(headers);
  for (const [name, value] of entries) {
    if (typeof value !== "string") throw invalidBatch(where, `header ${quote(name)} must have a string value`);
    if (!isHeaderField(name, value)) throw invalidBatch(where, `header ${quote(name)} is not a valid HTTP header`);
  }
  return headerRecord(entries as [string, string][]);
}

function readDependsOn(dependsOn: unknown, where: string): string[] {
  if (dependsOn === undefined) return [];
  if (Array.isArray(dependsOn) && dependsOn.every((name) => typeof name === "string")) return dependsOn;
  throw invalidBatch(where, '"dependsOn" must be an array of request ids or atomicity groups');
}
