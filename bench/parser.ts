/**
 * Parser throughput, in this process, without a database or a server: for each query string, how
 * many times per second
 *
 * - `parse`: our parseQueryOptions turns it into the syntax tree,
 * - `plan`: the host's whole uncached planning runs (resource path, entity, parse, bind against
 *   the sample model, compile to SQL text): a ReadPlanner with `cacheSize: 0`, so every call
 *   does what a request of a shape not seen before costs,
 * - `cached`: the same planner call answered from the cache (what a repeated shape costs),
 * - `odata-v4-parser`: the widely used JS OData parser (a comparison baseline, nothing of ours
 *   uses it) parses the same query string with its whole-query entry point, `query(…)`.
 *
 * Every one of ours starts from the decoded query string too: `new URLSearchParams(text)` is part
 * of each measured call, as splitting the string is part of odata-v4-parser's. That parser knows
 * no `$apply`: those strings are reported as unsupported rather than left out. Each measurement
 * is a time-boxed loop (BENCH_PARSER_SECONDS, default 1 s) after a warm-up of a third of that.
 */
import { sampleModel } from "@bizdata/examples";
import { parseQueryOptions, ReadPlanner } from "@bizdata/odata";
import { query as theirQuery } from "odata-v4-parser";
import { queryMix, READ_ONE_OPTIONS } from "./scenarios.js";

export interface ParserCase {
  readonly name: string;
  /** the decoded resource path after `/api/` */
  readonly path: string;
  /** the decoded query string, `$name=value&…` */
  readonly query: string;
}

export interface ParserResult extends ParserCase {
  /** operations per second */
  readonly parse: number;
  readonly plan: number;
  readonly cached: number;
  /** null when odata-v4-parser rejects the string */
  readonly theirs: number | null;
  readonly theirsError?: string;
}

const decoded = (options: readonly (readonly [string, string])[]) =>
  options.map(([name, value]) => `${name}=${value}`).join("&");

/** the six query-mix strings of the HTTP scenarios, then functions, a lambda and a grouping */
export const parserCases: readonly ParserCase[] = [
  ...Object.entries(queryMix).map(([name, [path, options]]) => ({ name, path, query: decoded(options) })),
  { name: "read-one", path: "Product(0b6d4a3e-53c1-4f0e-9a44-6b1d2c3e4f50)", query: decoded(READ_ONE_OPTIONS) },
  {
    name: "functions",
    path: "Product",
    query:
      "$filter=contains(tolower(SalesDescription),'oak') and Cost ge 10.5&$orderby=Cost desc,SKU&$skip=20&$top=10&$select=SKU,Cost",
  },
  {
    name: "lambda",
    path: "SalesOrder",
    query:
      "$filter=Details/any(d:d/Quantity gt 5 and d/Product/SKU ne 'X') and OrderDate ge 2024-01-01&$select=DocNumber,Status&$orderby=OrderDate desc&$top=25",
  },
  {
    name: "groupby",
    path: "SalesOrder",
    query:
      "$apply=filter(Status ne 'Closed')/groupby((Status,SellToCustomer/Name),aggregate(TotalPrice with sum as Total,$count as Orders))&$orderby=Total desc",
  },
];

/** where results go so that no call is dead code */
let sink: unknown;

/** calls per second of `fn`, counted over `seconds` of wall time in batches that check the clock rarely */
function opsPerSecond(fn: () => unknown, seconds: number): number {
  const window = BigInt(Math.round(seconds * 1e9));
  const start = process.hrtime.bigint();
  let ops = 0;
  let batch = 1;
  for (;;) {
    for (let i = 0; i < batch; i++) sink = fn();
    ops += batch;
    const elapsed = process.hrtime.bigint() - start;
    if (elapsed >= window) return ops / (Number(elapsed) / 1e9);
    // batches up to about a hundredth of the window: the clock costs nothing, the overshoot little
    if (elapsed * 100n < window) batch *= 2;
  }
}

function measure(fn: () => unknown, seconds: number): number {
  fn(); // throws before any timing when the string is not accepted
  opsPerSecond(fn, seconds / 3);
  return opsPerSecond(fn, seconds);
}

export function runParserBench(seconds: number, log: (line: string) => void = console.error): ParserResult[] {
  const uncached = new ReadPlanner(sampleModel, { cacheSize: 0 });
  const cached = new ReadPlanner(sampleModel);
  const results: ParserResult[] = [];
  for (const c of parserCases) {
    log(`parser: ${c.name}…`);
    const request = () => ({ path: c.path, search: new URLSearchParams(c.query), ieee754Compatible: false });
    const planned = cached.plan(request());
    if (planned.kind === "method") throw new Error(`parser case ${c.name} plans as a method call`);
    const parse = measure(() => parseQueryOptions(new URLSearchParams(c.query)), seconds);
    const plan = measure(() => uncached.plan(request()), seconds);
    const hit = measure(() => cached.plan(request()), seconds);
    let theirs: number | null = null;
    let theirsError: string | undefined;
    try {
      theirs = measure(() => theirQuery(c.query), seconds);
    } catch (error) {
      theirsError = error instanceof Error ? error.message : String(error);
    }
    results.push({ ...c, parse, plan, cached: hit, theirs, ...(theirsError === undefined ? {} : { theirsError }) });
  }
  if (sink === Symbol.for("never")) log("");
  return results;
}
