/**
 * `multipart/mixed` framing (RFC 2046 §5.1.1), as OData 4.0 Protocol §11.7.2 uses it for batch
 * requests. Works on lines, so CRLF and bare LF endings both read; the line break before a
 * boundary belongs to the boundary, so a part's content is exactly the lines between two.
 */
import { invalidBatch, quote } from "./batch-errors.js";
import { headerRecord, parseMediaType, splitHeaderLine } from "./headers.js";

/** RFC 2046 §5.1.1 `boundary := 0*69<bchars> bcharsnospace` */
const boundaryPattern = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/** The boundary of a `multipart/mixed` content type, or undefined when it is not one. */
export function multipartBoundary(contentType: string): string | undefined {
  const media = parseMediaType(contentType);
  const boundary = media?.type === "multipart/mixed" ? media.parameters.get("boundary") : undefined;
  return boundary !== undefined && boundaryPattern.test(boundary) ? boundary : undefined;
}

/**
 * The body parts between `--boundary` lines, one at a time so a caller can stop counting early.
 * The preamble before the first boundary and the epilogue after `--boundary--` are ignored.
 */
export function* bodyParts(lines: readonly string[], boundary: string, where: string): Generator<readonly string[]> {
  const open = `--${boundary}`;
  const close = `${open}--`;
  let start = -1;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (!line.startsWith(open)) continue;
    const delimiter = line.trimEnd(); // RFC 2046 transport padding
    if (delimiter !== open && delimiter !== close) continue;
    if (start < 0 && delimiter === close) break;
    if (start >= 0) yield lines.slice(start, index);
    if (delimiter === close) return;
    start = index + 1;
  }
  throw invalidBatch(where, start < 0 ? `no opening boundary ${quote(open)}` : `no closing boundary ${quote(close)}`);
}

export interface Entity {
  /** header fields, names lower-cased */
  readonly headers: Readonly<Record<string, string>>;
  /** the lines after the blank line that ends the headers */
  readonly content: readonly string[];
}

/** Header lines up to the first blank line, then the content (RFC 2045 §3, RFC 9112 §2.1). */
export function readEntity(lines: readonly string[], where: string): Entity {
  const blank = lines.indexOf("");
  const fields = (blank < 0 ? lines : lines.slice(0, blank)).map((line) => {
    const field = splitHeaderLine(line);
    if (field === undefined) throw invalidBatch(where, `malformed header line ${quote(line)}`);
    return field;
  });
  return { headers: headerRecord(fields), content: blank < 0 ? [] : lines.slice(blank + 1) };
}
