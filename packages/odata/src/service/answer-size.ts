/**
 * The size of an answer in UTF-8 bytes, for the answer budgets (QueryLimits.maxAnswerBytes,
 * BatchLimits.maxAnswerBytes). Counted only when the text's length leaves it open: a UTF-16 unit
 * is one to three bytes, so most answers are decided by their length alone.
 */
import { ServiceError } from "@bizdata/core";

/** the UTF-8 length of `text`, as TextEncoder encodes it */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // a surrogate pair: two units, four bytes
      bytes += 2;
      i++;
    } else if (c >= 0x800) {
      // a lone surrogate is encoded as U+FFFD, three bytes like any other unit from 0x800
      bytes += 2;
    } else if (c >= 0x80) bytes += 1;
  }
  return bytes;
}

/** whether `text` takes more than `limit` bytes in UTF-8 */
export function exceeds(text: string, limit: number): boolean {
  if (text.length > limit) return true;
  if (text.length * 3 <= limit) return false;
  return utf8Length(text) > limit;
}

/** throws 400 AnswerTooLarge when a read's answer is over its budget */
export function checkAnswerSize(text: string, limit: number): void {
  if (exceeds(text, limit)) {
    throw new ServiceError(
      "AnswerTooLarge",
      `The answer would be larger than the limit of ${limit} bytes; ask for fewer records ($top), fewer properties ($select) or fewer expanded items ($expand with $top or $filter).`,
    );
  }
}
