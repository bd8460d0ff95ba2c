import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Database, inTenant, type Session, toQuery } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";
import { migrateService } from "../schema.js";
import { createTenant, setFeature } from "../tenants/tenant-admin.js";
import { ImportFailed, importFile } from "./import-file.js";

const dir = mkdtempSync(join(tmpdir(), "bizdata-import-"));
let db: Database;

/** writes a file into the test folder; each value one line (objects as JSON) */
const file = (name: string, lines: readonly unknown[]) => {
  const path = join(dir, name);
  writeFileSync(path, `${lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n")}\n`);
  return path;
};

const quiet = { write: () => true } as unknown as NodeJS.WritableStream;

/** a tenant with two products, two customers and a price level, loaded by import themselves */
async function catalog(label: string): Promise<string> {
  const tenantId = uniqueTenant(label);
  await createTenant(db, tenantId);
  await setFeature(db, tenantId, "PriceLevels", true);
  const load = (entity: string, lines: unknown[]) =>
    importFile({
      db,
      model: sampleModel,
      tenantId,
      entity,
      file: file(`${tenantId}-${entity}.jsonl`, lines),
      stderr: quiet,
    });
  await load("Product", [
    { SKU: "I-1", Price: 10 },
    { SKU: "I-2", Price: 4 },
  ]);
  await load("Customer", [{ Id: "IC-1" }, { Id: "IC-2" }]);
  await load("PriceLevel", [{ Name: "Half", DiscountPercent: 50 }]);
  return tenantId;
}

const order = (doc: string, more: Record<string, unknown> = {}) => ({
  DocNumber: doc,
  SellToCustomer: "IC-1",
  Details: [
    { Product: "I-1", Quantity: 2 },
    { Product: "I-2", Quantity: 1 },
  ],
  ...more,
});

/** DocNumber → TotalPrice of the tenant's orders */
const orders = (tenantId: string) =>
  inTenant(db, tenantId, async (tx) => {
    const rows = await tx.query<{ doc: string; total: string }>({
      sql: "SELECT doc_number AS doc, total_price::text AS total FROM sales_order WHERE tenant_id = $1 ORDER BY doc_number",
      params: [tenantId],
    });
    return Object.fromEntries(rows.map((r) => [r.doc, Number(r.total)]));
  });

const report = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));

beforeAll(async () => {
  db = await testDatabase();
  await migrateService(db, sampleModel);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("importFile", () => {
  it("stores the good rows through business logic and reports every bad row with its line and reason", async () => {
    const tenantId = await catalog("imp");
    const path = file("orders.jsonl", [
      order("IO-1", { PriceLevel: "Half" }),
      order("IO-2", { SellToCustomer: "NOBODY" }),
      "",
      "{not json",
      order("IO-3", { Details: [{ Product: "I-1", Quantity: -1 }] }),
      order("IO-1"),
      order("IO-4", { CustomerId: "IC-2" }),
      [1, 2],
    ]);
    const summary = await importFile({
      db,
      model: sampleModel,
      tenantId,
      entity: "SalesOrder",
      file: path,
      chunkSize: 3,
      stderr: quiet,
    });
    expect(summary).toMatchObject({ rows: 7, loaded: 2, rejected: 5, skipped: 0 });
    // priced and totalled by the sample logic (half off at the price level); CustomerId went through its deserialization hook
    expect(await orders(tenantId)).toEqual({ "IO-1": 12, "IO-4": 24 });
    expect(report(summary.reportFile)).toEqual([
      { line: 2, code: "ReferenceNotFound", message: 'No Customer has Guid or Id "NOBODY".', target: "SellToCustomer" },
      { line: 4, code: "UnreadableRow", message: expect.stringContaining("not valid JSON") },
      {
        line: 5,
        code: "ValidationError",
        message: "Quantity must be greater than zero.",
        details: [
          { code: "SaveRejected", message: "Quantity must be greater than zero.", target: "Details[0].Quantity" },
        ],
      },
      { line: 6, code: "DuplicateKey", message: "Another SalesOrder already has this DocNumber.", target: "DocNumber" },
      { line: 8, code: "UnreadableRow", message: "The line is not a JSON object." },
    ]);
  });

  it("stops at a chunk that fails, says how to go on, and resumes after the stored chunks without duplicates", async () => {
    const tenantId = await catalog("imp-resume");
    const docs = Array.from({ length: 9 }, (_, i) => `IR-${i + 1}`);
    const path = file("resume.jsonl", [
      ...docs.slice(0, 4).map((d) => order(d)),
      order("IR-x", { SellToCustomer: "NOBODY" }),
      ...docs.slice(4).map((d) => order(d)),
    ]);
    // the database goes away while the third chunk stores its orders
    let orderInserts = 0;
    const failing: Database = {
      ...db,
      transaction: (fn, options) =>
        db.transaction(
          (tx) =>
            fn({
              store: tx.store,
              query: (statement) => {
                const text = toQuery(statement).sql;
                // an insert with its change log rows (logged-writes.ts)
                if (/^WITH r AS \(INSERT INTO "sales_order" /.test(text) && ++orderInserts === 3)
                  throw Object.assign(new Error("terminating connection"), { code: "57P01" });
                return tx.query(statement);
              },
            } satisfies Session),
          options,
        ),
    };
    const run = (database: Database, resume: boolean, stderr = quiet) =>
      importFile({
        db: database,
        model: sampleModel,
        tenantId,
        entity: "SalesOrder",
        file: path,
        chunkSize: 2,
        resume,
        stderr,
      });
    const stopped = await run(failing, false).catch((err: unknown) => err);
    expect(stopped).toBeInstanceOf(ImportFailed);
    expect((stopped as Error).message).toMatch(
      /^Chunk 3 \(lines 5–6\) of .*resume\.jsonl failed: terminating connection\n/,
    );
    expect((stopped as Error).message).toContain("Rows up to line 4 are stored");
    expect((stopped as Error).message).toContain("run the same command with --resume to go on from line 5.");
    expect(Object.keys(await orders(tenantId))).toEqual(["IR-1", "IR-2", "IR-3", "IR-4"]);
    // without --resume it refuses to start over (the stored rows would be sent again)
    await expect(run(db, false)).rejects.toThrow(
      /stopped after line 4: chunk of lines 5–6 failed: terminating connection\.\nRun the same command with --resume/,
    );
    const written: string[] = [];
    const resumed = await run(db, true, {
      write: (text: string) => written.push(text) > 0,
    } as unknown as NodeJS.WritableStream);
    expect(resumed).toMatchObject({ rows: 10, loaded: 5, rejected: 1, skipped: 4 });
    // progress as lines (stderr is no terminal here): the last one at the end of the file, then the summary
    const lines = written.join("").trimEnd().split("\n");
    expect(lines.at(-2)).toMatch(/^import SalesOrder: 10\/10 rows, 1 rejected, \d[\d,]* rows\/s, ETA 0s$/);
    expect(lines.at(-1)).toMatch(
      /^Imported 5 SalesOrder rows into tenant imp-resume-\S+ in \d+s \([\d,]+ rows\/s\); 1 rejected, see .*resume\.jsonl\.rejected\.jsonl; 4 done by the earlier run\.$/,
    );
    expect(Object.keys(await orders(tenantId)).sort()).toEqual([...docs].sort());
    expect(report(resumed.reportFile).map((r) => [r.line, r.code])).toEqual([[5, "ReferenceNotFound"]]);
    // once done, the same file is not imported again
    expect(await run(db, true)).toMatchObject({ loaded: 0, rejected: 0, skipped: 10 });
    expect(Object.keys(await orders(tenantId))).toHaveLength(9);
  });

  it("reads CSV with a header row, nested values as Complex/Member, and numbers of the entity's types", async () => {
    const tenantId = await catalog("imp-csv");
    const path = join(dir, "contacts.csv");
    writeFileSync(
      path,
      [
        "Email,FirstName,MailingAddress/City,MailingAddress/State",
        "ann@example.com,Ann,Reading,PA",
        'bob@example.com,"Bob, Jr.",,TX',
        "ann@example.com,Again,,",
        "",
      ].join("\n"),
    );
    const summary = await importFile({
      db,
      model: sampleModel,
      tenantId,
      entity: "Contact",
      file: path,
      stderr: quiet,
    });
    expect(summary).toMatchObject({ rows: 3, loaded: 2, rejected: 1 });
    expect(report(summary.reportFile)).toEqual([
      { line: 4, code: "DuplicateKey", message: "Another Contact already has this Email.", target: "Email" },
    ]);
    const stored = await inTenant(db, tenantId, (tx) =>
      tx.query<{ first_name: string; city: string | null; state: string }>({
        sql: "SELECT first_name, mailing_address__city AS city, mailing_address__state AS state FROM contact WHERE tenant_id = $1 ORDER BY email",
        params: [tenantId],
      }),
    );
    expect(stored).toEqual([
      { first_name: "Ann", city: "Reading", state: "PA" },
      { first_name: "Bob, Jr.", city: null, state: "TX" },
    ]);
  });

  it("turns the rows of a virtual entity into what its save creates", async () => {
    const tenantId = await catalog("imp-virtual");
    const path = join(dir, "quick.csv");
    writeFileSync(
      path,
      ["DocNumber,Customer,Lines", "IQ-1,IC-1,I-1:3", "IQ-2,IC-2,I-1:1,I-2:5", "IQ-3,IC-2,I-9:1", ""].join("\n"),
    );
    const summary = await importFile({
      db,
      model: sampleModel,
      tenantId,
      entity: "SalesOrderImport",
      file: path,
      chunkSize: 10,
      stderr: quiet,
    });
    expect(summary).toMatchObject({ rows: 3, loaded: 1, rejected: 2 });
    expect(await orders(tenantId)).toEqual({ "IQ-1": 30 });
    expect(report(summary.reportFile)).toEqual([
      // Lines holding a comma must be quoted in CSV: unquoted, its second pair is a cell too many
      { line: 3, code: "UnreadableRow", message: "The row has 4 cells; the header has 3." },
      // what the virtual entity's save creates goes through the pipeline: its lines' products are looked up
      {
        line: 4,
        code: "ReferenceNotFound",
        message: 'No Product has Guid or SKU "I-9".',
        target: "Details[0].Product",
      },
    ]);
  });
});

describe("bizdata import", () => {
  it("needs the tenant, and imports through the CLI with a summary", async () => {
    const tenantId = await catalog("imp-cli");
    const output: string[] = [];
    const context = {
      env: { LOG_LEVEL: "silent" },
      cwd: dir,
      print: (line: string) => output.push(line),
      stderr: quiet,
      database: db,
    };
    const config = join(import.meta.dirname, "../../../../examples/src/host/reference-host.ts");
    const path = file("cli.jsonl", [order("ICLI-1"), order("ICLI-2", { SellToCustomer: "NOBODY" })]);
    await expect(runCli(["import", "SalesOrder", path, "--config", config], context)).rejects.toThrow(
      "Give the tenant to import into with --tenant ID.",
    );
    await expect(
      runCli(["import", "SalesOrder", path, "--tenant", tenantId, "--chunk", "0", "--config", config], context),
    ).rejects.toThrow('--chunk must be a positive integer, not "0".');
    await runCli(["import", "SalesOrder", "cli.jsonl", "--tenant", tenantId, "--config", config], context);
    expect(output).toEqual([expect.stringMatching(/^1 stored, 1 rejected, 0 done before; \d+ rows\/s$/)]);
    expect(Object.keys(await orders(tenantId))).toEqual(["ICLI-1"]);
  });
});
