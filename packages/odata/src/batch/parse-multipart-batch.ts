/**
 * The OData 4.0 `multipart/mixed` batch request (Protocol §11.7.2): body parts of type
 * `application/http`, each one request, and changesets (nested `multipart/mixed`, §11.7.3) of
 * writes. Parts are counted before any body is parsed, so an oversized batch is refused cheaply.
 */
import { type BatchLimits, defaultBatchLimits } from "../limits.js";
import { invalidBatch, partLabel, quote, tooManyParts } from "./batch-errors.js";
import { batchMethod, checkLimits, type DraftPart, finishBatch, requestIdPattern } from "./batch-rules.js";
import type { ParsedBatch } from "./batch-types.js";
import { parseMediaType } from "./headers.js";
import { bodyParts, type Entity, multipartBoundary, readEntity } from "./multipart.js";

export function parseMultipartBatch(
  text: string,
  contentType: string,
  limits: BatchLimits = defaultBatchLimits,
): ParsedBatch {
  const boundary = multipartBoundary(contentType);
  if (boundary === undefined) {
    throw invalidBatch("The batch", `Content-Type ${quote(contentType)} is not multipart/mixed with a valid boundary`);
  }
  const drafts: DraftPart[] = [];
  const nextPart = (): number => {
    if (drafts.length >= limits.maxBatchParts) throw tooManyParts(limits);
    return drafts.length + 1;
  };
  let changesets = 0;
  for (const lines of bodyParts(text.split(/\r?\n/), boundary, "The batch")) {
    const number = nextPart();
    const entity = readEntity(lines, partLabel(number));
    const changeset = changesetBoundary(entity, partLabel(number));
    if (changeset === undefined) {
      drafts.push(readRequest(entity, number));
      continue;
    }
    const group = `changeset:${++changesets}`;
    for (const inner of bodyParts(entity.content, changeset, `changeset ${changesets}`)) {
      const innerNumber = nextPart();
      const innerEntity = readEntity(inner, partLabel(innerNumber));
      if (changesetBoundary(innerEntity, partLabel(innerNumber)) !== undefined) {
        throw invalidBatch(partLabel(innerNumber), `changeset ${changesets} contains a changeset; they cannot nest`);
      }
      drafts.push(readRequest(innerEntity, innerNumber, group));
    }
  }
  checkLimits(drafts, limits);
  return finishBatch("multipart", drafts.map(withBody));
}

/** A changeset's boundary; undefined for a request part (§11.7.2: `Content-Type: application/http`). */
function changesetBoundary(entity: Entity, where: string): string | undefined {
  const contentType = entity.headers["content-type"] ?? "";
  const type = parseMediaType(contentType)?.type;
  if (type === "application/http") return undefined;
  const boundary = multipartBoundary(contentType);
  if (boundary !== undefined) return boundary;
  throw invalidBatch(
    where,
    type === "multipart/mixed"
      ? "the changeset's Content-Type has no valid boundary"
      : `Content-Type ${quote(contentType)} is neither application/http nor multipart/mixed (a changeset)`,
  );
}

/** Identity encodings only (RFC 2045 §6); OData sends `binary` (§11.7.2). */
const encodings = new Set(["binary", "8bit", "7bit"]);

/** `METHOD URL HTTP/1.1`, header lines, a blank line and the body (RFC 9112 §3). */
const requestLinePattern = /^(\S+) (\S+) HTTP\/1\.1$/;

function readRequest(entity: Entity, number: number, group?: string): DraftPart {
  const partId = entity.headers["content-id"];
  const encoding = entity.headers["content-transfer-encoding"];
  if (encoding !== undefined && !encodings.has(encoding.toLowerCase())) {
    throw invalidBatch(partLabel(number, partId), `Content-Transfer-Encoding ${quote(encoding)} is not supported`);
  }
  const [requestLine = "", ...rest] = entity.content;
  const match = requestLinePattern.exec(requestLine);
  if (!match) {
    const problem = `malformed request line ${quote(requestLine)}; expected "METHOD URL HTTP/1.1"`;
    throw invalidBatch(partLabel(number, partId), problem);
  }
  const request = readEntity(rest, partLabel(number, partId));
  // §11.7.3: Content-ID is a part header; some clients put it among the request's headers
  const id = partId ?? request.headers["content-id"];
  const where = partLabel(number, id);
  if (id !== undefined && !requestIdPattern.test(id)) {
    throw invalidBatch(where, 'the Content-ID must be letters, digits, "-", ".", "_" or "~"');
  }
  const bodyText = request.content.join("\n").trim();
  return {
    id,
    method: batchMethod(match[1]!, where),
    url: match[2]!,
    headers: id === undefined ? request.headers : { ...request.headers, "content-id": id },
    ...(bodyText === "" ? {} : { bodyText }),
    ...(group === undefined ? {} : { atomicityGroup: group }),
    dependsOn: [],
  };
}

function withBody(draft: DraftPart, index: number): DraftPart {
  if (draft.bodyText === undefined) return draft;
  try {
    return { ...draft, body: JSON.parse(draft.bodyText) };
  } catch (error) {
    throw invalidBatch(partLabel(index + 1, draft.id), `the body is not valid JSON (${(error as Error).message})`);
  }
}
