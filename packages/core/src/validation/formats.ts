/**
 * Wire formats of the string-typed scalars. Dates and instants follow the OData ABNF
 * (`dateValue`, `dateTimeOffsetValue`); a GUID is 8-4-4-4-12 hexadecimal digits; text in a URL is
 * an OData string literal (`string`), which the URL parser and method arguments both read.
 */

export const guidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
/** seconds and fractional seconds are optional in OData's `timeOfDayValue`; the offset is not */
const dateTimePattern = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,12})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/**
 * A `YYYY-MM-DD` string naming a day that exists. Year 0000 is refused because PostgreSQL has no
 * year zero.
 *
 * @example isCalendarDate("2024-02-29") // true
 * @example isCalendarDate("2023-02-29") // false
 */
export function isCalendarDate(text: string): boolean {
  const match = datePattern.exec(text);
  if (match === null) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/**
 * An ISO 8601 instant with a time zone (`Z` or `±hh:mm`); a local time without an offset is
 * refused because it names no instant.
 *
 * @example isDateTimeWithOffset("2024-05-01T09:30:00+02:00") // true
 */
export function isDateTimeWithOffset(text: string): boolean {
  const match = dateTimePattern.exec(text);
  if (match === null) return false;
  const [, day = "", hour, minute, second = "0", offsetHour = "0", offsetMinute = "0"] = match;
  return (
    isCalendarDate(day) &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    Number(second) <= 59 &&
    Number(offsetHour) <= 23 &&
    Number(offsetMinute) <= 59
  );
}

const timeOfDayPattern = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,12})?)?$/;

/**
 * OData's `timeOfDayValue`: `hh:mm`, `hh:mm:ss` or `hh:mm:ss.fff…`, 00:00 to 23:59:59.999….
 *
 * @example isTimeOfDay("13:20:00.5") // true
 */
export function isTimeOfDay(text: string): boolean {
  const match = timeOfDayPattern.exec(text);
  if (match === null) return false;
  const [, hour, minute, second = "0"] = match;
  return Number(hour) <= 23 && Number(minute) <= 59 && Number(second) <= 59;
}

/**
 * OData's `durationValue` (a day-time duration): an optional sign, `P`, then days and a `T` with
 * hours, minutes and (fractional) seconds, at least one of them. Each number has at most 9
 * digits, so any duration fits PostgreSQL's `interval`.
 */
const durationPattern = /^-?P(?=\d|T\d)(?:\d{1,9}D)?(?:T(?=\d)(?:\d{1,9}H)?(?:\d{1,9}M)?(?:\d{1,9}(?:\.\d{1,9})?S)?)?$/;

/**
 * @example isDuration("P1DT2H") // true
 * @example isDuration("P1M") // false: a month is no fixed length
 */
export const isDuration = (text: string): boolean => durationPattern.test(text);

/** `text` as an OData string literal (ABNF `string`): in single quotes, each quote doubled */
export const odataString = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/**
 * The text of an OData string literal, its quotes already found by the caller
 *
 * @example odataStringValue("'O''Brien'") // "O'Brien"
 */
export function odataStringValue(literal: string): string {
  const inner = literal.slice(1, -1);
  return inner.includes("''") ? inner.replaceAll("''", "'") : inner;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
