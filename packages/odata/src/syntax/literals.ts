/**
 * Literal tokens to `Literal` nodes. The lexer only checks the shape of dates and times; the
 * field ranges (month 13, February 30, hour 24) are checked here so the message can say which.
 */
import { isDuration, isTimeOfDay, odataStringValue } from "@bizdata/core";
import type { IToken } from "chevrotain";
import type { Literal } from "./ast.js";
import {
  DateLiteral,
  DateTimeOffsetLiteral,
  DateTimeWithoutOffset,
  DurationLiteral,
  False,
  GuidLiteral,
  NumberLiteral,
  StringLiteral,
  TimeOfDayLiteral,
  True,
} from "./tokens.js";

/**
 * The node for a token of the `PrimitiveLiteral` category; `pos` is the token's offset. Callers
 * check `literalProblem` first: a token with a problem has no node of its own.
 */
export function literalOf(token: IToken): Literal {
  const pos = token.startOffset;
  const type = token.tokenType;
  if (type === StringLiteral) return { kind: "string", value: odataStringValue(token.image), pos };
  if (type === NumberLiteral) return numberLiteral(token.image, pos);
  if (type === GuidLiteral) return { kind: "guid", value: token.image, pos };
  if (type === DateLiteral) return { kind: "date", value: token.image, pos };
  if (type === DateTimeOffsetLiteral) return { kind: "dateTimeOffset", value: token.image, pos };
  if (type === TimeOfDayLiteral) return { kind: "timeOfDay", value: token.image, pos };
  if (type === DurationLiteral) return { kind: "duration", value: token.image.slice("duration'".length, -1), pos };
  if (type === True) return { kind: "boolean", value: true, pos };
  if (type === False) return { kind: "boolean", value: false, pos };
  return { kind: "null", pos };
}

/** What is wrong with a literal token that has the right shape, or undefined when nothing is. */
export function literalProblem(token: IToken): string | undefined {
  const type = token.tokenType;
  if (type === DateLiteral) return dateProblem(token.image);
  if (type === DateTimeOffsetLiteral) return dateProblem(token.image) ?? timeProblem(token.image);
  if (type === DateTimeWithoutOffset) return `date-time '${token.image}' needs a time zone: Z or ±hh:mm`;
  if (type === TimeOfDayLiteral && !isTimeOfDay(token.image)) return `invalid time of day '${token.image}'`;
  if (type === DurationLiteral) return durationProblem(token.image.slice("duration'".length, -1));
  return undefined;
}

/** Integer vs decimal by the presence of a fraction or exponent; the text is kept, but for a leading `+`. */
function numberLiteral(image: string, pos: number): Literal {
  const text = image.startsWith("+") ? image.slice(1) : image;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // '.', 'e', 'E'
    if (c === 46 || c === 101 || c === 69) return { kind: "decimal", text, pos };
  }
  return { kind: "integer", text, pos };
}

/** what is wrong with the text of `duration'…'`, if anything */
function durationProblem(text: string): string | undefined {
  if (isDuration(text)) return undefined;
  if (/^-?P(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T.*)?$/.test(text) && /[YMW]/.test(text.split("T")[0]!)) {
    return `duration '${text}' has years, months or weeks, which have no fixed length; give days, hours, minutes and seconds (P30D)`;
  }
  return `invalid duration '${text}': expected ISO 8601 days, hours, minutes and seconds, such as P1DT2H30M or PT0.5S`;
}

const daysInMonth = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `yyyy-mm-dd` at the start of `image` (the lexer guarantees the digits). */
function dateProblem(image: string): string | undefined {
  const year = Number(image.slice(0, 4));
  const month = Number(image.slice(5, 7));
  const day = Number(image.slice(8, 10));
  if (month < 1 || month > 12) return `invalid month in date '${image}'`;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const maxDay = month === 2 && !leap ? 28 : (daysInMonth[month - 1] ?? 31);
  if (day < 1 || day > maxDay) return `invalid day in date '${image}'`;
  return undefined;
}

/** `…Thh:mm[:ss[.fff]](Z|±hh:mm)` from offset 11 on. */
function timeProblem(image: string): string | undefined {
  const hour = Number(image.slice(11, 13));
  const minute = Number(image.slice(14, 16));
  const second = image[16] === ":" ? Number(image.slice(17, 19)) : 0;
  if (hour > 23 || minute > 59 || second > 59) return `invalid time in date-time '${image}'`;
  const sign = Math.max(image.lastIndexOf("+"), image.lastIndexOf("-"));
  // the last '-' of a date-time without offset is the one in the date part (offset 7)
  if (sign > 10) {
    const offsetHour = Number(image.slice(sign + 1, sign + 3));
    const offsetMinute = Number(image.slice(sign + 4, sign + 6));
    if (offsetHour > 23 || offsetMinute > 59) return `invalid time zone offset in date-time '${image}'`;
  }
  return undefined;
}
