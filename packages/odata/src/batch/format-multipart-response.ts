/**
 * The OData 4.0 `multipart/mixed` batch response (Protocol §11.7.4): one `application/http` part
 * per response, in request order, `Content-ID` echoed; the responses of a changeset nest in a
 * `multipart/mixed` part of their own, and a failed changeset is one response for all of it.
 * Lines end in CRLF (RFC 2046 §5.1.1).
 */
import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { BatchPart, BatchResponsePart, ParsedBatch } from "./batch-types.js";

const crlf = "\r\n";

export function formatMultipartBatchResponse(
  parts: readonly BatchResponsePart[],
  parsed: ParsedBatch,
): { contentType: string; body: string } {
  const requests = new Map(parsed.parts.map((part) => [part.id, part]));
  const requestOf = (response: BatchResponsePart): BatchPart => {
    const request = requests.get(response.id);
    if (request === undefined) throw new Error(`No request in the batch has the id "${response.id}".`);
    return request;
  };
  // consecutive responses of one changeset form one entry
  const entries: { group: string | undefined; responses: BatchResponsePart[] }[] = [];
  for (const response of parts) {
    const group = requestOf(response).atomicityGroup;
    const last = entries.at(-1);
    if (group !== undefined && last?.group === group) last.responses.push(response);
    else entries.push({ group, responses: [response] });
  }
  const boundary = `batchresponse_${randomUUID()}`;
  const body = multipart(
    boundary,
    entries.map(({ group, responses }) => {
      // the failure itself, not the 424s of the parts it rolled back
      const failed = responses.filter((response) => response.status >= 400);
      const single = group === undefined ? responses[0] : (failed.find((r) => r.status !== 424) ?? failed[0]);
      // §11.7.4: a failed changeset answers with one response, the failure, for all its requests
      if (single) return httpPart(single, requestOf(single));
      const changeset = `changesetresponse_${randomUUID()}`;
      const inner = responses.map((response) => httpPart(response, requestOf(response)));
      return `Content-Type: multipart/mixed; boundary=${changeset}${crlf}${crlf}${multipart(changeset, inner)}`;
    }),
  );
  return { contentType: `multipart/mixed; boundary=${boundary}`, body };
}

/** Body parts between `--boundary` lines, closed by `--boundary--` (RFC 2046 §5.1.1). */
const multipart = (boundary: string, parts: readonly string[]): string =>
  parts.map((part) => `--${boundary}${crlf}${part}${crlf}`).join("") + `--${boundary}--${crlf}`;

/** One response as an `application/http` body part (§11.7.4); the Content-ID only when the request had one. */
function httpPart(response: BatchResponsePart, request: BatchPart): string {
  const contentId = request.headers["content-id"] === undefined ? "" : `Content-ID: ${request.id}${crlf}`;
  const fields = Object.entries(response.headers).map(([name, value]) => `${name}: ${oneLine(value)}${crlf}`);
  return (
    `Content-Type: application/http${crlf}Content-Transfer-Encoding: binary${crlf}${contentId}${crlf}` +
    `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ""}${crlf}${fields.join("")}${crlf}` +
    (response.body ?? "")
  );
}

/** A header value cannot break its line: that would forge headers or parts. */
const oneLine = (value: string): string => value.replace(/[\r\n]+/g, " ");
