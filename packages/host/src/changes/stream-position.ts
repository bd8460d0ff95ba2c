/**
 * The event ids of the change stream (`GET /api/$changes`): a position in the change log (core's
 * change-reads.ts), the transaction and sequence number of the last change sent, so that a stream
 * resumed with it (`Last-Event-ID`) continues after exactly that row. A stream's first id, before
 * any change, is the watermark it started at with sequence 0: every row of that transaction or a
 * later one comes after it. With them the time the stream had sent everything up to there, to refuse
 * a position older than the change log's retention (410) before reading a log that may no longer
 * hold what follows it. Opaque to a client: base64url of the fields separated by dots.
 */
import { badRequest, type ChangePosition, isTransactionId, ServiceError } from "@bizdata/core";

export interface StreamPosition extends ChangePosition {
  /** when the stream had sent every change up to the position (milliseconds) */
  readonly at: number;
}

const LETTER = "c";

export const encodePosition = ({ xid, seq, at }: StreamPosition): string =>
  Buffer.from([LETTER, xid, String(seq), String(at)].join(".")).toString("base64url");

/** the position `text` of `source` (the header or the query option it came in), checked to be one this stream wrote */
export function decodePosition(text: string, source: string): StreamPosition {
  const malformed = () =>
    badRequest(
      "InvalidEventId",
      `${source} is not an id the change stream wrote: send the id of the last event received as it is.`,
      source,
    );
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(text)) throw malformed();
  const [letter, xid, seqText, atText, ...rest] = Buffer.from(text, "base64url").toString("latin1").split(".");
  const seq = Number(seqText);
  const at = Number(atText);
  if (letter !== LETTER || rest.length > 0 || xid === undefined || !isTransactionId(xid)) throw malformed();
  if (!Number.isSafeInteger(seq) || seq < 0 || !Number.isSafeInteger(at) || at < 0) throw malformed();
  const position = { xid, seq, at };
  // one text per position: base64url takes stray trailing characters, and numbers have other spellings
  if (encodePosition(position) !== text) throw malformed();
  return position;
}

/** refuses a position the stream reached longer ago than the change log's retention (`retention` seconds) */
export function checkRetention(position: StreamPosition, retention: number, now = Date.now()): void {
  if (position.at >= now - retention * 1000) return;
  throw new ServiceError(
    "EventIdExpired",
    `This position was reached at ${new Date(position.at).toISOString()}, longer ago than the change log keeps changes (${retention} s): read the data again, then open the stream without Last-Event-ID.`,
  );
}
