/**
 * Durations (`duration()` fields, Edm.Duration) between their wire form and PostgreSQL's
 * `interval`. PostgreSQL reads ISO 8601 durations but wants a sign per field (`P-1DT-2H`, not
 * `-P1DT2H`), and writes intervals in the session's IntervalStyle (`1 day 02:00:00` by
 * default), so both directions are spelled out here rather than left to a setting.
 */
import { type SQL, sql } from "drizzle-orm";

/**
 * An ISO 8601 duration as PostgreSQL reads it.
 *
 * @example intervalInput("-P1DT2H") // "P-1DT-2H"
 */
export const intervalInput = (duration: string): string =>
  duration.startsWith("-") ? duration.slice(1).replace(/(\d+(?:\.\d+)?)([DHMS])/g, "-$1$2") : duration;

/**
 * SQL that writes an interval as OData's `durationValue`: days, then hours, minutes and seconds
 * (`P1DT2H30M`, `-PT0.5S`, `PT0S`), a day counted as 24 hours, null for null.
 */
export const durationText = (interval: SQL): SQL =>
  sql`(SELECT CASE WHEN e IS NULL THEN NULL ELSE (CASE WHEN e < 0 THEN '-' ELSE '' END) || 'P' || (CASE WHEN d > 0 THEN d || 'D' ELSE '' END) || (CASE WHEN r > 0 THEN 'T' || (CASE WHEN h > 0 THEN h || 'H' ELSE '' END) || (CASE WHEN m > 0 THEN m || 'M' ELSE '' END) || (CASE WHEN s > 0 THEN trim_scale(s) || 'S' ELSE '' END) WHEN d = 0 THEN 'T0S' ELSE '' END) END FROM (SELECT e, d, r, floor(r / 3600)::int8 AS h, floor(mod(r, 3600) / 60)::int8 AS m, mod(r, 60) AS s FROM (SELECT e, floor(abs(e) / 86400)::int8 AS d, mod(abs(e), 86400) AS r FROM (SELECT extract(epoch FROM ${interval}) AS e) AS x) AS y) AS z)`;
