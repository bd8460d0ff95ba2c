/**
 * The rows of an import file, each with the line it starts on: JSON Lines (one JSON object per
 * line, the body a client would POST, collections and natural keys included) or CSV (a header
 * row of property names, `Complex/Member` for a member of a nested value; one record per row,
 * so no collections). A row that cannot be read is a row with an error, not the end of the file.
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import type { AnyEntity, PersistedField } from "@bizdata/core";
import { defaultBodyLimits, parseJson } from "@bizdata/odata";
import { parse } from "csv-parse";

export type ImportFormat = "jsonl" | "csv";

export interface SourceRow {
  /** the 1-based line number of the row in the file (a CSV record whose quoted cell spans lines: its last) */
  readonly line: number;
  readonly body?: Record<string, unknown>;
  /** why the row could not be read */
  readonly error?: string;
}

/** the format a file name says, or an error naming the ones known */
export function formatOf(file: string): ImportFormat {
  if (/\.(jsonl|ndjson)$/i.test(file)) return "jsonl";
  if (/\.csv$/i.test(file)) return "csv";
  throw new Error(`${file}: import reads JSON Lines (.jsonl, .ndjson) or CSV (.csv) files.`);
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

async function* jsonLines(file: string): AsyncGenerator<SourceRow> {
  let line = 0;
  for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    line++;
    if (text.trim() === "") continue;
    try {
      const body = parseJson(text, defaultBodyLimits);
      if (body === null || typeof body !== "object" || Array.isArray(body))
        yield { line, error: "The line is not a JSON object." };
      else yield { line, body: body as Record<string, unknown> };
    } catch (err) {
      yield { line, error: messageOf(err) };
    }
  }
}

/**
 * A CSV cell as the JSON value a client would send for the property: numbers for integers,
 * true/false for booleans, decimals as exact strings (validated with IEEE754Compatible), an
 * empty cell as no value at all (the property is left out).
 */
function cellValue(field: PersistedField | undefined, cell: string): unknown {
  if (cell === "") return undefined;
  switch (field?.kind) {
    case "integer":
      return /^-?\d+$/.test(cell.trim()) ? Number(cell) : cell;
    case "boolean":
      return cell.trim().toLowerCase() === "true" ? true : cell.trim().toLowerCase() === "false" ? false : cell;
    default:
      return cell;
  }
}

/** a CSV row (header → cell) as a body of `def`: `Complex/Member` columns nested */
function csvBody(def: AnyEntity, row: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const fields = def.fields as Record<string, PersistedField>;
  for (const [column, cell] of Object.entries(row)) {
    const [name, member] = column.split("/") as [string, string | undefined];
    const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (member === undefined) {
      const value = cellValue(field, cell);
      if (value !== undefined) body[name] = value;
      continue;
    }
    const memberField = field?.kind === "complex" ? field.fields[member] : undefined;
    const value = cellValue(memberField, cell);
    if (value === undefined) continue;
    body[name] = { ...(body[name] as Record<string, unknown> | undefined), [member]: value };
  }
  return body;
}

async function* csvRows(file: string, def: AnyEntity): AsyncGenerator<SourceRow> {
  // rows as arrays, matched to the header here, so that a row with the wrong number of cells is
  // that row's error rather than the end of the file
  const parser = createReadStream(file).pipe(
    parse({ bom: true, skip_empty_lines: true, info: true, relax_column_count: true }),
  );
  const rows = parser[Symbol.asyncIterator]() as AsyncIterator<{ record: string[]; info: { lines: number } }>;
  let header: string[] | undefined;
  for (;;) {
    let next: IteratorResult<{ record: string[]; info: { lines: number } }>;
    try {
      next = await rows.next();
    } catch (err) {
      // text the parser cannot read (an unclosed quote) ends the file: there is no telling where the next row starts
      const line = (err as { lines?: number }).lines ?? 0;
      yield { line, error: `The file cannot be read as CSV from here on: ${messageOf(err)}` };
      return;
    }
    if (next.done) return;
    const { record, info } = next.value;
    if (header === undefined) {
      header = record.map((name) => name.trim());
      continue;
    }
    if (record.length !== header.length) {
      yield { line: info.lines, error: `The row has ${record.length} cells; the header has ${header.length}.` };
      continue;
    }
    yield { line: info.lines, body: csvBody(def, Object.fromEntries(header.map((name, i) => [name, record[i]!]))) };
  }
}

/** the rows of `file` in order, read as it says (formatOf) */
export const readRows = (file: string, def: AnyEntity): AsyncGenerator<SourceRow> =>
  formatOf(file) === "csv" ? csvRows(file, def) : jsonLines(file);
