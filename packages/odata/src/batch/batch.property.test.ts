/**
 * Property tests: a random valid batch, written in either wire format by the writers below,
 * parses back to the parts it was written from; and no input whatsoever makes a parser throw
 * anything but a 400 `ServiceError`.
 */
import { ServiceError } from "@bizdata/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BatchMethod, BatchPart } from "./batch-types.js";
import { parseJsonBatch } from "./parse-json-batch.js";
import { parseMultipartBatch } from "./parse-multipart-batch.js";

// ---------------------------------------------------------------- the model of a valid batch

interface Request {
  readonly id: string | undefined;
  readonly method: BatchMethod;
  /** index of an earlier request with an id that the url refers to as `$<id>` */
  readonly ref: number | undefined;
  readonly path: string;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: { readonly value: unknown; readonly indent: number | undefined } | undefined;
  /** 1-based changeset number */
  readonly changeset: number | undefined;
  readonly idAmongRequestHeaders: boolean;
}

const clientId = fc.stringMatching(/^[A-Za-z0-9._~-]{1,6}$/).filter((id) => !/^p\d+$/.test(id));
const headerName = fc
  .stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,10}$/)
  .filter((name) => name.toLowerCase() !== "content-id");
const headers = fc.uniqueArray(
  fc.tuple(
    headerName,
    fc.stringMatching(/^[ -~]{0,16}$/).map((value) => value.trim()),
  ),
  {
    selector: ([name]) => name.toLowerCase(),
    maxLength: 3,
  },
);
const path = fc.constantFrom("Product", "/api/Product(1)?$select=Name,Price", "http://host/api/Order", "$metadata");
const body = fc.option(fc.record({ value: fc.jsonValue({ maxDepth: 3 }), indent: fc.constantFrom(undefined, 2) }), {
  nil: undefined,
});
const request = (methods: readonly BatchMethod[]) =>
  fc.record({
    id: fc.option(clientId, { nil: undefined }),
    method: fc.constantFrom(...methods),
    ref: fc.option(fc.nat(), { nil: undefined }),
    path,
    headers,
    body,
    idAmongRequestHeaders: fc.boolean(),
  });
const entry = fc.oneof(
  request(["GET", "POST", "PATCH", "DELETE"]).map((single) => [single]),
  fc.array(request(["POST", "PATCH", "DELETE"]), { minLength: 1, maxLength: 4 }).map((writes) => ({ writes })),
);

/** Numbers changesets, makes ids unique and points each `ref` at an earlier request with an id. */
const batch: fc.Arbitrary<Request[]> = fc.array(entry, { maxLength: 8 }).map((entries) => {
  const requests: Request[] = [];
  const used = new Set<string>();
  let changesets = 0;
  for (const item of entries) {
    const changeset = Array.isArray(item) ? undefined : ++changesets;
    for (const drawn of Array.isArray(item) ? item : item.writes) {
      const id = drawn.id === undefined || used.has(drawn.id) ? undefined : drawn.id;
      if (id !== undefined) used.add(id);
      const earlier = requests.flatMap((other, index) => (other.id === undefined ? [] : [index]));
      const ref = drawn.ref === undefined || earlier.length === 0 ? undefined : earlier[drawn.ref % earlier.length];
      requests.push({ ...drawn, id, ref, changeset, body: drawn.method === "GET" ? undefined : drawn.body });
    }
  }
  return requests;
});

const nonEmpty = batch.filter((requests) => requests.length > 0);

const urlOf = (requests: readonly Request[], request: Request): string =>
  request.ref === undefined ? request.path : `$${requests[request.ref]!.id}/Details`;
const textOf = (body: NonNullable<Request["body"]>): string => JSON.stringify(body.value, null, body.indent) ?? "null";

/** What a parser should give back for the model. */
function expected(requests: readonly Request[], format: "json" | "multipart"): BatchPart[] {
  return requests.map((request, index) => {
    const id = request.id ?? `p${index + 1}`;
    const named = Object.fromEntries(request.headers.map(([name, value]) => [name.toLowerCase(), value]));
    const group =
      request.changeset === undefined
        ? undefined
        : `${format === "json" ? "group-" : "changeset:"}${request.changeset}`;
    const jsonBody = request.body === undefined || request.body.value === null ? {} : { body: request.body.value };
    const text = request.body === undefined ? undefined : textOf(request.body);
    return {
      id,
      method: request.method,
      url: urlOf(requests, request),
      headers: format === "multipart" && request.id !== undefined ? { ...named, "content-id": id } : named,
      ...(format === "json" ? jsonBody : text === undefined ? {} : { body: JSON.parse(text), bodyText: text }),
      ...(group === undefined ? {} : { atomicityGroup: group }),
      dependsOn: request.ref === undefined ? [] : [requests[request.ref]!.id!],
    };
  });
}

// ---------------------------------------------------------------- the writers

interface Style {
  readonly eol: "\r\n" | "\n";
  readonly boundary: string;
  readonly quoteBoundary: boolean;
  readonly padding: string;
  readonly preamble: readonly string[];
  readonly upperCase: boolean;
  readonly blankLinesAfterBody: number;
}
const style: fc.Arbitrary<Style> = fc.record({
  eol: fc.constantFrom("\r\n" as const, "\n" as const),
  boundary: fc.stringMatching(/^[0-9A-Za-z'()+_,\-./:=?]{0,30}$/).map((tail) => `batch${tail}`),
  quoteBoundary: fc.boolean(),
  padding: fc.stringMatching(/^[ \t]{0,3}$/),
  preamble: fc.array(fc.stringMatching(/^[a-z ]{0,12}$/), { maxLength: 2 }),
  upperCase: fc.boolean(),
  blankLinesAfterBody: fc.nat({ max: 2 }),
});

/** Writes the model as an OData 4.0 multipart batch (Protocol §11.7.2), the way clients do. */
function writeMultipart(requests: readonly Request[], s: Style): { text: string; contentType: string } {
  const name = (header: string) => (s.upperCase ? header.toUpperCase() : header);
  const http = (request: Request): string[] => [
    `${name("Content-Type")}: application/http`,
    `${name("Content-Transfer-Encoding")}: binary`,
    ...(request.id === undefined || request.idAmongRequestHeaders ? [] : [`${name("Content-ID")}: ${request.id}`]),
    "",
    `${request.method} ${urlOf(requests, request)} HTTP/1.1`,
    ...(request.id !== undefined && request.idAmongRequestHeaders ? [`Content-ID: ${request.id}`] : []),
    ...request.headers.map(([header, value]) => `${header}: ${value}`),
    "",
    ...(request.body === undefined ? [] : textOf(request.body).split("\n")),
    ...Array.from({ length: s.blankLinesAfterBody }, () => ""),
  ];
  const lines = [...s.preamble];
  requests.forEach((request, index) => {
    const changeset = request.changeset;
    if (changeset === undefined) {
      lines.push(`--${s.boundary}${s.padding}`, ...http(request));
      return;
    }
    const boundary = `changeset_${changeset}`;
    if (requests[index - 1]?.changeset !== changeset) {
      lines.push(`--${s.boundary}`, `${name("Content-Type")}: multipart/mixed; boundary=${boundary}`, "");
    }
    lines.push(`--${boundary}${s.padding}`, ...http(request));
    if (requests[index + 1]?.changeset !== changeset) lines.push(`--${boundary}--`);
  });
  lines.push(`--${s.boundary}--${s.padding}`, ...s.preamble);
  const quoted = s.quoteBoundary || !/^[\w'+.-]+$/.test(s.boundary);
  return {
    text: lines.join(s.eol),
    contentType: `multipart/mixed; boundary=${quoted ? `"${s.boundary}"` : s.boundary}`,
  };
}

/** Writes the model as an OData JSON batch (JSON Format 4.01 §19). */
const writeJson = (requests: readonly Request[], lowerCase: boolean) => ({
  requests: requests.map((request) => ({
    ...(request.id === undefined ? {} : { id: request.id }),
    method: lowerCase ? request.method.toLowerCase() : request.method,
    url: urlOf(requests, request),
    headers: Object.fromEntries(request.headers),
    ...(request.body === undefined ? {} : { body: request.body.value }),
    ...(request.changeset === undefined ? {} : { atomicityGroup: `group-${request.changeset}` }),
    // the id a `$<id>` url refers to belongs in dependsOn; left out (on a random flag), the parser adds it
    ...(request.ref === undefined || request.idAmongRequestHeaders ? {} : { dependsOn: [requests[request.ref]!.id] }),
  })),
});

// ---------------------------------------------------------------- properties

const runs = { numRuns: 300 };

describe("batch round trip", () => {
  it("multipart: the written batch parses back to the model", () => {
    fc.assert(
      // RFC 2046 §5.1.1: a multipart body has at least one part
      fc.property(nonEmpty, style, (requests, s) => {
        const { text, contentType } = writeMultipart(requests, s);
        expect(parseMultipartBatch(text, contentType)).toEqual({
          format: "multipart",
          parts: expected(requests, "multipart"),
        });
      }),
      runs,
    );
  });

  it("JSON: the written batch parses back to the model", () => {
    fc.assert(
      fc.property(
        batch.filter((requests) => requests.every((request) => !request.id?.startsWith("group-"))),
        fc.boolean(),
        (requests, lowerCase) => {
          expect(parseJsonBatch(writeJson(requests, lowerCase))).toEqual({
            format: "json",
            parts: expected(requests, "json"),
          });
        },
      ),
      runs,
    );
  });
});

/** Runs a parser; anything it throws must be a 400 with one of the two batch codes. */
function onlyServiceErrors(parse: () => unknown): void {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).status).toBe(400);
    expect(["InvalidBatch", "BatchTooLarge"]).toContain((error as ServiceError).code);
  }
}

describe("batch parsers on any input", () => {
  it("multipart: arbitrary text and content types", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string(), (text, contentType) => {
        onlyServiceErrors(() => parseMultipartBatch(text, contentType));
        onlyServiceErrors(() => parseMultipartBatch(`--b\r\n${text}\r\n--b--`, "multipart/mixed; boundary=b"));
      }),
      runs,
    );
  });

  it("multipart: valid batches with a random slice replaced", () => {
    const mutated = fc
      .tuple(batch, style, fc.nat(), fc.nat({ max: 40 }), fc.string())
      .map(([requests, s, at, cut, insert]) => {
        const { text, contentType } = writeMultipart(requests, s);
        const start = at % (text.length + 1);
        return { text: text.slice(0, start) + insert + text.slice(start + cut), contentType };
      });
    fc.assert(
      fc.property(mutated, ({ text, contentType }) => onlyServiceErrors(() => parseMultipartBatch(text, contentType))),
      runs,
    );
  });

  it("JSON: arbitrary values and near-valid requests", () => {
    const name = fc.constantFrom("1", "2", "g", "p1", "$1", "a b");
    const field = <T>(likely: fc.Arbitrary<T>) => fc.oneof(likely, fc.anything());
    const nearValid = fc.record(
      {
        id: field(name),
        method: field(fc.constantFrom("GET", "post", "PUT", "")),
        url: field(fc.constantFrom("A", "$1/B", "$g", "$batch", "$metadata")),
        headers: field(fc.dictionary(fc.string(), fc.string())),
        body: fc.anything(),
        atomicityGroup: field(name),
        dependsOn: field(fc.array(name)),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.array(nearValid, { maxLength: 6 }).map((requests) => ({ requests })),
        ),
        (body) => onlyServiceErrors(() => parseJsonBatch(body)),
      ),
      runs,
    );
  });
});
