/**
 * `bizdata import <entity> <file>`: loads a JSON Lines or CSV file into a tenant through the
 * write pipeline — deserialization hooks, validation, natural keys, business logic, save logic —
 * in chunks, each stored in one transaction as one set (createRecords: one natural-key lookup per
 * target entity and one insert per table for the chunk).
 *
 * - A row that fails (unreadable, invalid, a reference that matches nothing, save logic, a
 *   duplicate key) is rejected, not stored, and written to the report file with its line number
 *   and why; the other rows go on. When a chunk fails in the database as a whole (a duplicate key
 *   says nothing about which row), it is halved until the failing row is found.
 * - How far the import got is stored in the tenant (`bizdata_import`) in the same transaction as
 *   each chunk: after a failure or an interruption, `--resume` goes on after the last stored
 *   chunk, and no row is stored twice. A failure that is not a row's (the database went away, a
 *   bug) stops the import and says which chunk failed, why, and how to go on.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import {
  type AnyEntity,
  type ChangeAuthor,
  changeSource,
  createRecords,
  type Database,
  databaseErrorOf,
  inTenant,
  loadTenant,
  type Model,
  PromptCollector,
  ServiceError,
  type Session,
  tableQueries,
  type WriteLimits,
} from "@bizdata/core";
import { errorResponse } from "@bizdata/odata";
import { and, eq, sql } from "drizzle-orm";
import { tenantExists } from "../tenants/tenant-admin.js";
import { duration, importProgress } from "./import-progress.js";
import { formatOf, readRows, type SourceRow } from "./import-source.js";
import { importTable } from "./import-tables.js";

export interface ImportOptions {
  readonly db: Database;
  readonly model: Model;
  readonly tenantId: string;
  /** the entity the rows are records of (a virtual one's `save` decides what they become) */
  readonly entity: string;
  readonly file: string;
  /** rows per chunk, each chunk stored in one transaction (default 500) */
  readonly chunkSize?: number;
  /** go on after the rows an earlier, stopped import of this file stored */
  readonly resume?: boolean;
  /** the report of rejected rows, JSON Lines (default: the file's name + `.rejected.jsonl`) */
  readonly reportFile?: string;
  /** where progress and notes go (default process.stderr) */
  readonly stderr?: NodeJS.WritableStream & { isTTY?: boolean };
  /** bounds on what one record may hold, as the host's API has them (MAX_COLLECTION_ITEMS) */
  readonly writeLimits?: WriteLimits;
  /** who the change log says made the records (default `import`, and the file) */
  readonly author?: ChangeAuthor;
}

export interface ImportSummary {
  /** rows in the file */
  readonly rows: number;
  /** rows stored by this run */
  readonly loaded: number;
  /** rows rejected by this run (each in the report) */
  readonly rejected: number;
  /** rows an earlier run had done (a resumed import, or one already complete) */
  readonly skipped: number;
  readonly seconds: number;
  /** rows (stored or rejected) per second of this run */
  readonly rowsPerSecond: number;
  readonly reportFile: string;
}

/** an import that stopped: the message says which chunk, why, and how to go on */
export class ImportFailed extends Error {
  override readonly name = "ImportFailed";
}

/** one line of the report */
interface Rejection {
  readonly line: number;
  readonly code: string;
  readonly message: string;
  readonly target?: string;
  readonly details?: readonly unknown[];
}

const DEFAULT_CHUNK = 500;

/** the file's SHA-256 and its number of rows (non-empty lines, less the header of a CSV) */
async function survey(file: string): Promise<{ hash: string; rows: number }> {
  const hash = createHash("sha256");
  let rows = 0;
  const input = createReadStream(file);
  input.on("data", (chunk) => hash.update(chunk));
  for await (const line of createInterface({ input, crlfDelay: Infinity })) if (line.trim() !== "") rows++;
  return { hash: hash.digest("hex"), rows: formatOf(file) === "csv" ? Math.max(rows - 1, 0) : rows };
}

/** a failure that belongs to a row (its data), not to the import: the row is rejected */
function isRowProblem(err: unknown): boolean {
  if (err instanceof ServiceError) return err.status < 500;
  const code = (databaseErrorOf(err) as { code?: unknown } | null)?.code;
  // SQLSTATE classes 22 (data exception) and 23 (integrity constraint violation)
  return typeof code === "string" && /^2[23]/.test(code);
}

/** what went wrong, without the statement a query error was wrapped in */
const messageOf = (err: unknown) => {
  const cause = databaseErrorOf(err);
  return cause instanceof Error ? cause.message : String(cause);
};

/** the reasons the report gives, shaped like the API's error bodies */
function rejectionOf(line: number, err: unknown, model: Model): Rejection {
  const { error } = errorResponse(err, model);
  return {
    line,
    code: error.code,
    message: error.message,
    ...(error.target !== undefined && { target: error.target }),
    ...(error.details.length > 0 && { details: error.details }),
  };
}

/** the report's entries of lines up to `line` (the rest belongs to chunks not stored) */
async function keepReport(file: string, line: number): Promise<void> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    text = "";
  }
  const kept = text.split("\n").filter((entry) => entry !== "" && (JSON.parse(entry) as Rejection).line <= line);
  await writeFile(file, kept.map((entry) => `${entry}\n`).join(""));
}

export async function importFile(options: ImportOptions): Promise<ImportSummary> {
  const { db, model, tenantId, file } = options;
  const stderr = options.stderr ?? process.stderr;
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new Error(`The chunk size must be a positive integer.`);
  const def = model.entity(options.entity);
  if (def === undefined)
    throw new Error(
      `There is no entity "${options.entity}" in the model; it has ${[...model.entities.keys()].join(", ")}.`,
    );
  const format = formatOf(file);
  if (!(await tenantExists(db, tenantId))) throw new Error(`Tenant "${tenantId}" does not exist; create it first.`);
  const reportFile = options.reportFile ?? `${file}.rejected.jsonl`;
  const { hash, rows } = await survey(file);
  const importId = `${def.name}:${hash}`;
  const marker = and(eq(importTable.tenantId, tenantId), eq(importTable.importId, importId));
  const [earlier] = await inTenant(db, tenantId, (tx) => tableQueries(tx).select().from(importTable).where(marker));
  const started = performance.now();
  const summary = (loaded: number, rejected: number, skipped: number): ImportSummary => {
    const seconds = (performance.now() - started) / 1000;
    return { rows, loaded, rejected, skipped, seconds, rowsPerSecond: (loaded + rejected) / seconds, reportFile };
  };
  if (earlier?.status === "done") {
    stderr.write(
      `${file} was imported into tenant ${tenantId} already (${earlier.loaded} rows stored, ${earlier.rejected} rejected); nothing to do.\n`,
    );
    return summary(0, 0, rows);
  }
  if (earlier !== undefined && !options.resume)
    throw new ImportFailed(
      `An import of ${file} into tenant ${tenantId} stopped after line ${earlier.linesDone}${earlier.error ? `: ${earlier.error}` : ""}.\n` +
        `Run the same command with --resume to go on from there.`,
    );
  let linesDone = earlier?.linesDone ?? 0;
  if (earlier === undefined) {
    if (options.resume) stderr.write(`There is no earlier import of ${file} into tenant ${tenantId}; starting it.\n`);
    await inTenant(db, tenantId, (tx) =>
      tableQueries(tx).insert(importTable).values({ tenantId, importId, entity: def.name, file, status: "running" }),
    );
    await writeFile(reportFile, "");
  } else {
    // what the report holds past the stored chunks is of rows that will be read again
    await keepReport(reportFile, linesDone);
    stderr.write(`Resuming the import of ${file} after line ${linesDone}.\n`);
  }

  const skipped = earlier === undefined ? 0 : earlier.loaded + earlier.rejected;
  // the records' change log rows name the import and its file, unless the caller says who
  const changes = changeSource(model, options.author ?? { actor: "import", requestId: importId });
  let loaded = 0;
  let rejected = 0;
  const progress = importProgress(stderr, `import ${def.name}`, rows, skipped);
  const ctx = async (tx: Session) => ({
    session: tx,
    model,
    tenant: await loadTenant(tx, tenantId),
    // questions take their default answer, as on a plain request
    prompts: new PromptCollector(),
    // CSV cells are text: decimals arrive as exact strings
    options: { ieee754Compatible: format === "csv" },
    ...(options.writeLimits && { limits: options.writeLimits }),
  });

  /** moves the marker from `linesDone` to `to` inside `tx`; another import that moved it first stops this one */
  const advance = async (tx: Session, to: number, stored: number, refused: number) => {
    const moved = await tableQueries(tx)
      .update(importTable)
      .set({
        linesDone: to,
        loaded: sql`${importTable.loaded} + ${stored}`,
        rejected: sql`${importTable.rejected} + ${refused}`,
        updatedAt: sql`now()`,
      })
      .where(and(marker, eq(importTable.linesDone, linesDone)))
      .returning({ linesDone: importTable.linesDone });
    if (moved.length === 0)
      throw new ImportFailed(
        `Another import of ${file} into tenant ${tenantId} moved on meanwhile; stopping this one.`,
      );
  };

  /** stores one chunk (or, when it fails as a whole, its halves) and moves the marker past it */
  const store = async (chunk: readonly SourceRow[]): Promise<void> => {
    const to = chunk.at(-1)!.line;
    const readable = chunk.filter((row) => row.body !== undefined);
    const refused: Rejection[] = chunk.flatMap((row) =>
      row.error === undefined ? [] : [{ line: row.line, code: "UnreadableRow", message: row.error }],
    );
    try {
      const stored = await inTenant(
        db,
        tenantId,
        async (tx) => {
          const outcomes = await createRecords(
            await ctx(tx),
            def as AnyEntity,
            readable.map((row) => row.body),
          );
          let failures = 0;
          outcomes.forEach((outcome, i) => {
            if (outcome.error === undefined) return;
            failures++;
            refused.push(rejectionOf(readable[i]!.line, outcome.error, model));
          });
          refused.sort((a, b) => a.line - b.line);
          // written before the chunk commits: a chunk that does not commit has its entries cut on resume
          await writeFile(reportFile, refused.map((r) => `${JSON.stringify(r)}\n`).join(""), { flag: "a" });
          await advance(tx, to, readable.length - failures, refused.length);
          return readable.length - failures;
        },
        { changes },
      );
      linesDone = to;
      loaded += stored;
      rejected += refused.length;
    } catch (err) {
      await keepReport(reportFile, linesDone);
      if (err instanceof ImportFailed || !isRowProblem(err)) throw err;
      if (chunk.length > 1) {
        const half = Math.ceil(chunk.length / 2);
        await store(chunk.slice(0, half));
        await store(chunk.slice(half));
        return;
      }
      const rejection = rejectionOf(chunk[0]!.line, err, model);
      await inTenant(db, tenantId, async (tx) => {
        await writeFile(reportFile, `${JSON.stringify(rejection)}\n`, { flag: "a" });
        await advance(tx, to, 0, 1);
      });
      linesDone = to;
      rejected++;
    }
    progress.update(skipped + loaded + rejected, rejected);
  };

  let chunk: SourceRow[] = [];
  let number = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    number++;
    const [first, last] = [chunk[0]!.line, chunk.at(-1)!.line];
    try {
      await store(chunk);
    } catch (err) {
      progress.stop();
      const reason = messageOf(err);
      await inTenant(db, tenantId, (tx) =>
        tableQueries(tx)
          .update(importTable)
          .set({ status: "failed", error: `chunk of lines ${first}–${last} failed: ${reason}`, updatedAt: sql`now()` })
          .where(marker),
      ).catch(() => undefined);
      throw new ImportFailed(
        `Chunk ${number} (lines ${first}–${last}) of ${file} failed: ${reason}\n` +
          `Rows up to line ${linesDone} are stored (${skipped + loaded} stored or rejected before).\n` +
          `Fix the cause, then run the same command with --resume to go on from line ${linesDone + 1}.`,
        { cause: err },
      );
    }
    chunk = [];
  };
  for await (const row of readRows(file, def)) {
    if (row.line <= linesDone) continue;
    chunk.push(row);
    if (chunk.length >= chunkSize) await flush();
  }
  await flush();
  progress.stop();
  await inTenant(db, tenantId, (tx) =>
    tableQueries(tx).update(importTable).set({ status: "done", error: null, updatedAt: sql`now()` }).where(marker),
  );
  const done = summary(loaded, rejected, skipped);
  stderr.write(
    `Imported ${loaded.toLocaleString("en-US")} ${def.name} rows into tenant ${tenantId} in ${duration(done.seconds)} ` +
      `(${Math.round(done.rowsPerSecond).toLocaleString("en-US")} rows/s)` +
      (rejected > 0 ? `; ${rejected.toLocaleString("en-US")} rejected, see ${reportFile}` : "") +
      (skipped > 0 ? `; ${skipped.toLocaleString("en-US")} done by the earlier run` : "") +
      ".\n",
  );
  return done;
}
