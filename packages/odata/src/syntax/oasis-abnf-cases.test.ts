/**
 * The OASIS OData ABNF test cases (vendored in test-fixtures/oasis-odata-abnf with their licence)
 * run against the parser. Each case names an ABNF rule, an input, and, for a case that must fail,
 * `FailAt`. A case is read the way the service reads what the rule describes: a URL as the host
 * routes it (readUrl), a query option, an expression, a search, a resource path or a literal
 * through the parser's entry point for it. A case passes when the reading accepts it and it has
 * no `FailAt`, or refuses it and it has one. What the model decides (that a key is a Guid, that a
 * method has a parameter) is binding's, after the grammar; where a case needs the model's names
 * the file's `Constraints` stand for them. The position is not compared: `FailAt` is where the
 * ABNF's backtracking matcher gave up (its longest match), where a parser that reads left to
 * right names the first token that cannot continue, which is often elsewhere.
 *
 * test-fixtures/oasis-abnf-exceptions.yaml lists, with a reason each, the rules this service does
 * not read (context URLs, headers, payload values) and the cases of the rules it reads that it
 * answers otherwise than the case says: most of them OData the service does not offer (casts,
 * annotations, `$ref`, spatial literals, …: reasons marked `outside`), the few others OData it
 * offers and reads otherwise, each saying why. Every other case must pass, every listed one must
 * still be answered otherwise (so the list stays true), and of the cases of OData the service
 * offers at least 98 % pass. The test names and prints both figures: those cases passing (N of
 * M), and the cases outside by reason (docs/guide/decisions.md, The URL grammar).
 */
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { metadataFormat } from "../metadata/metadata-negotiation.js";
import { describes } from "../metadata/service-description.js";
import { trackingOption } from "../service/delta-token.js";
import { isMethodArgument } from "../service/method-call.js";
import { formatOptionOf, resourcePath, serviceRequest } from "../service/odata-request.js";
import {
  parseAliasValue,
  parseFilter,
  parseQueryOptions,
  parseResourcePath,
  parseSearch,
  QuerySyntaxError,
  queryParameters,
} from "./index.js";

interface TestCase {
  readonly Name: string;
  readonly Rule: string;
  readonly Input: string;
  readonly FailAt?: number;
}

interface Exceptions {
  /** by name: why, and whether it is OData the service does not offer */
  readonly reasons: Readonly<Record<string, { readonly why: string; readonly outside?: boolean }>>;
  /** rules the service does not read, by rule name: a reason */
  readonly rules: Readonly<Record<string, string>>;
  /** cases of the rules read, by rule and input: a reason */
  readonly cases: readonly { readonly rule: string; readonly input: string; readonly reason: string }[];
}

const fixtures = new URL("../../test-fixtures/", import.meta.url);
const suite: { Constraints: Readonly<Record<string, readonly string[]>>; TestCases: readonly TestCase[] } = parse(
  readFileSync(new URL("oasis-odata-abnf/odata-abnf-testcases.yaml", fixtures), "utf8"),
);
const testCases = suite.TestCases;
const exceptions: Exceptions = parse(readFileSync(new URL("oasis-abnf-exceptions.yaml", fixtures), "utf8"));

/**
 * The operations of the cases' model (the file's `Constraints`: the names its ABNF checker takes
 * as functions, actions and their imports) and their parameters: what the service learns from its
 * own model to tell a method's arguments in the query (method-call.ts)
 */
const operations = new Set(
  Object.entries(suite.Constraints)
    .filter(([kind]) => /^(action|\w*Function)(Import)?$/.test(kind))
    .flatMap(([, names]) => names),
);
const parameters = Object.fromEntries((suite.Constraints.parameterName ?? []).map((name) => [name, true]));

/** text outside a query decoded: percent-escapes only (`+` is a plus sign there) */
const decoded = (text: string) => decodeURIComponent(text);

/**
 * A request URL as the host reads it. The service document and `$batch` read no query option
 * (a batch's format is its Content-Type), `$metadata` only `$format` (metadata-routes.ts); any
 * other path is the service's: `serviceRequest` splits the URL (and answers `$format`), the parser
 * reads the path, and the query is read as the service reads it for what the path names: for a
 * method of the model, its arguments apart (method-call.ts); for a read, the tokens of change
 * tracking apart (track-changes.ts), any text to the grammar, which the service then checks is
 * a token it wrote, as it checks that a key is a Guid; then the query options.
 */
function readUrl(url: URL, basePath: string): void {
  const path = resourcePath(url.pathname, basePath);
  const what = describes(path);
  if (what === "metadata") metadataFormat(formatOptionOf(url.searchParams), undefined);
  if (what !== undefined || path === "$batch") return;
  const request = serviceRequest("GET", url, new Headers(), undefined, { basePath, tenantId: "t" });
  const last = parseResourcePath(request.path).segments.at(-1)!;
  const options = new URLSearchParams();
  for (const [name, value] of request.search) {
    if (operations.has(last.name) && isMethodArgument(parameters, name)) {
      if (!Object.hasOwn(parameters, name)) throw new QuerySyntaxError(name, 0, "not a parameter of the method");
    } else if (!operations.has(last.name) && trackingOption(name) !== undefined) {
      if (value === "") throw new QuerySyntaxError(name, 0, "an empty token");
    } else options.append(name, value);
  }
  parseQueryOptions(options);
}

/**
 * An absolute URL: its service root is some prefix of its path, which the service is configured
 * with and the grammar cannot tell, so every prefix ending in `/` is tried.
 */
function readAbsoluteUrl(text: string): void {
  const url = new URL(text);
  if (!/^https?:\/\/[^/]/.test(text)) throw new QuerySyntaxError("url", 0, "not an http(s) URL with a host");
  const roots = [...url.pathname.matchAll(/\//g)].map((m) => url.pathname.slice(0, m.index));
  let last: unknown;
  for (const root of roots) {
    try {
      readUrl(url, root);
      return;
    } catch (error) {
      last = error;
    }
  }
  throw last;
}

/** one name, as an entity set or identifier is: a path of one unqualified segment without parentheses */
function readName(text: string): void {
  const { segments } = parseResourcePath(text);
  if (segments.length !== 1 || segments[0]!.qualifier !== null || segments[0]!.args !== null) {
    throw new QuerySyntaxError("path", 0, "not a single name");
  }
}

type Reader = (input: string) => void;

const readers: Readonly<Record<string, Reader>> = {
  odataUri: readAbsoluteUrl,
  odataRelativeUri: (input) => readUrl(new URL(input, "http://host/service/"), "/service"),
  resourcePath: (input) => parseResourcePath(input),
  entitySetName: readName,
  odataIdentifier: readName,
  functionParameter: (input) => parseResourcePath(`Function(${input})`),
  // what follows a collection's path: `Items/any(…)`
  anyExpr: (input) => parseFilter(`$it/${decoded(input)}`),
  searchExpr: (input) => parseSearch(queryParameters(`$search=${input}`).get("$search")!),
  ...Object.fromEntries(
    [
      "queryOptions",
      "systemQueryOption",
      "customQueryOption",
      "filter",
      "select",
      "expand",
      "orderby",
      "orderBy",
      "compute",
      "search",
      "skiptoken",
      "deltatoken",
    ].map((rule): [string, Reader] => [
      rule,
      (input) => readUrl(new URL(`Set?${input}`, "http://host/service/"), "/service"),
    ]),
  ),
  ...Object.fromEntries(
    [
      "commonExpr",
      "boolCommonExpr",
      "boolcommonExpr",
      "firstMemberExpr",
      "propertyPathExpr",
      "isofExpr",
      "notExpr",
    ].map((rule): [string, Reader] => [rule, (input) => parseFilter(decoded(input))]),
  ),
};

/** the kinds of literal a literal rule stands for; a rule not here may be any literal */
const literalKinds: Readonly<Record<string, readonly string[]>> = {
  boolean: ["boolean"],
  date: ["date"],
  guid: ["guid"],
  null: ["null"],
  stringLiteral: ["string"],
  durationLiteral: ["duration", "string"],
  timeOfDayLiteral: ["timeOfDay"],
  dateTimeOffsetLiteral: ["dateTimeOffset"],
  dateTimeOffsetValueInUrl: ["dateTimeOffset"],
  ...Object.fromEntries(
    ["decimal", "double", "single", "sbyte", "byte", "int16", "int32", "int64"].map((t) => [
      `${t}Literal`,
      ["integer", "decimal"],
    ]),
  ),
};

/** literals as they stand in a URL: the value of a parameter alias, `@p=…`, of the rule's kind */
const readLiteral =
  (rule: string): Reader =>
  (input) => {
    const value = parseAliasValue("@p", decoded(input));
    const kinds = literalKinds[rule];
    if (value.kind !== "literal" || (kinds !== undefined && !kinds.includes(value.literal.kind))) {
      throw new QuerySyntaxError("@p", 0, `not a literal of ${rule}`);
    }
  };

const readerOf = (rule: string): Reader | undefined =>
  readers[rule] ??
  (/Literal$|^(primitiveLiteral|boolean|date|guid|null|stringInUrl|dateTimeOffsetValueInUrl)$|^geo/.test(rule)
    ? readLiteral(rule)
    : undefined);

/** whether the service's reading of `input` as `rule` accepts it */
function accepts(rule: string, input: string): boolean {
  try {
    readerOf(rule)!(input);
    return true;
  } catch {
    // a syntax error, an invalid URL, malformed percent-encoding, a format the service refuses
    return false;
  }
}

const key = (rule: string, input: string) => `${rule}\u0000${input}`;
const listed = new Map(exceptions.cases.map((c) => [key(c.rule, c.input), c.reason]));
const read = testCases.filter((c) => exceptions.rules[c.Rule] === undefined);

// The figures, from the list: the cases below check that every listed case is answered otherwise
// and every other one as it says, so these counts are what the parser does.
const reasonOf = (c: TestCase) => exceptions.rules[c.Rule] ?? listed.get(key(c.Rule, c.Input));
const isOutside = (reason: string | undefined) => reason !== undefined && exceptions.reasons[reason]?.outside === true;
/** the cases of OData the service offers, and of them those answered as the case says */
const offered = testCases.filter((c) => !isOutside(reasonOf(c)));
const passing = offered.filter((c) => reasonOf(c) === undefined);
const percent = ((100 * passing.length) / offered.length).toFixed(1);

/** how many cases each reason stands for, most first */
const tally = (cases: readonly TestCase[]) => {
  const counts = new Map<string, number>();
  for (const c of cases) counts.set(reasonOf(c)!, (counts.get(reasonOf(c)!) ?? 0) + 1);
  return [...counts].sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
};
const outside = tally(testCases.filter((c) => isOutside(reasonOf(c))));
const otherwise = tally(offered.filter((c) => reasonOf(c) !== undefined));
const listing = (counts: readonly (readonly [string, number])[]) => counts.map(([r, n]) => `${r} ${n}`).join(", ");

describe("OASIS OData ABNF test cases", () => {
  afterAll(() => {
    const total = outside.reduce((sum, [, n]) => sum + n, 0);
    console.info(
      [
        `OASIS OData ABNF test cases: ${testCases.length}`,
        `  OData the service offers: ${passing.length} of ${offered.length} pass (${percent} %); answered otherwise: ${listing(otherwise)}`,
        `  OData the service does not offer: ${total}, by reason: ${listing(outside)}`,
      ].join("\n"),
    );
  });

  it("names a reason for every rule and case it leaves out, and a reader for every rule it reads", () => {
    for (const reason of [...Object.values(exceptions.rules), ...exceptions.cases.map((c) => c.reason)]) {
      expect(Object.keys(exceptions.reasons), reason).toContain(reason);
    }
    // a rule left out whole is one the service does not read: OData it does not offer
    for (const [rule, reason] of Object.entries(exceptions.rules)) expect(isOutside(reason), rule).toBe(true);
    for (const c of read) expect(readerOf(c.Rule), c.Rule).toBeDefined();
    const known = new Set(testCases.map((c) => key(c.Rule, c.Input)));
    for (const c of exceptions.cases) expect(known.has(key(c.rule, c.input)), `${c.rule}: ${c.input}`).toBe(true);
  });

  it.each(read.map((c) => [c.Rule, c.Input, c] as const))("%s: %s", (_rule, _input, c) => {
    const expected = c.FailAt === undefined;
    const reason = listed.get(key(c.Rule, c.Input));
    // a listed case is one the parser answers otherwise; when it no longer does, the list is wrong
    expect(accepts(c.Rule, c.Input), `${c.Name}${reason ? ` (listed: ${reason})` : ""}`).toBe(
      reason === undefined ? expected : !expected,
    );
  });

  it(`offered OData: ${passing.length} of ${offered.length} cases pass (${percent} %), at least 98 %`, () => {
    expect(passing.length / offered.length).toBeGreaterThanOrEqual(0.98);
  });
});
