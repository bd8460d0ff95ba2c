import { ServiceError } from "@bizdata/core";
import { describe, expect, it } from "vitest";
import { defaultBatchLimits } from "../limits.js";
import { parseMultipartBatch } from "./parse-multipart-batch.js";

const contentType = "multipart/mixed; boundary=batch_1";
const crlf = (...lines: string[]) => lines.join("\r\n");
const lf = (...lines: string[]) => lines.join("\n");

/** one `application/http` body part (Protocol 4.0 §11.7.2) */
const request = (requestLine: string, options: { id?: string; headers?: string[]; body?: string } = {}) => [
  "Content-Type: application/http",
  "Content-Transfer-Encoding: binary",
  ...(options.id === undefined ? [] : [`Content-ID: ${options.id}`]),
  "",
  requestLine,
  ...(options.headers ?? []),
  "",
  ...(options.body === undefined ? [] : [options.body]),
];
const changeset = (boundary: string, ...parts: string[][]) => [
  `Content-Type: multipart/mixed; boundary=${boundary}`,
  "",
  ...parts.flatMap((part) => [`--${boundary}`, ...part]),
  `--${boundary}--`,
];
const batch = (...parts: string[][]) => [...parts.flatMap((part) => ["--batch_1", ...part]), "--batch_1--"];

function thrown(run: () => unknown): ServiceError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error("no error thrown");
}

const example = batch(
  request("GET Product?$select=Name HTTP/1.1", { headers: ["Accept: application/json"] }),
  changeset(
    "changeset_a",
    request("POST /api/Product HTTP/1.1", {
      id: "1",
      headers: ["Content-Type: application/json"],
      body: '{"Name":"X","Price":12345678901234567890}',
    }),
    request("POST $1/Details HTTP/1.1", { id: "2", body: '{\n  "Quantity": 2\n}' }),
  ),
  request("DELETE Product(7) HTTP/1.1"),
);

const expected = {
  format: "multipart",
  parts: [
    { id: "p1", method: "GET", url: "Product?$select=Name", headers: { accept: "application/json" }, dependsOn: [] },
    {
      id: "1",
      method: "POST",
      url: "/api/Product",
      headers: { "content-type": "application/json", "content-id": "1" },
      body: { Name: "X", Price: 12345678901234567000 }, // bodyText keeps the exact digits
      bodyText: '{"Name":"X","Price":12345678901234567890}',
      atomicityGroup: "changeset:1",
      dependsOn: [],
    },
    {
      id: "2",
      method: "POST",
      url: "$1/Details",
      headers: { "content-id": "2" },
      body: { Quantity: 2 },
      bodyText: '{\n  "Quantity": 2\n}',
      atomicityGroup: "changeset:1",
      dependsOn: ["1"],
    },
    { id: "p4", method: "DELETE", url: "Product(7)", headers: {}, dependsOn: [] },
  ],
};

describe("parseMultipartBatch", () => {
  it("reads requests and changesets with CRLF line endings", () => {
    expect(parseMultipartBatch(crlf(...example), contentType)).toEqual(expected);
  });

  it("reads the same from bare LF line endings, a preamble, an epilogue and transport padding", () => {
    const text = lf("preamble", ...example.map((line) => (line === "--batch_1" ? "--batch_1 \t" : line)), "epilogue");
    expect(parseMultipartBatch(text, contentType)).toEqual(expected);
  });

  it("reads a quoted boundary, header names in any case, repeated headers, Content-ID among the request headers", () => {
    const text = crlf(
      "--a b",
      "content-type: Application/HTTP",
      "",
      "PATCH Product(1) HTTP/1.1",
      "Content-ID: x",
      "Prefer: return=minimal",
      "PREFER: odata.continue-on-error",
      "",
      '{"Price":1}',
      "--a b--",
    );
    expect(parseMultipartBatch(text, 'Multipart/Mixed; charset=utf-8; boundary="a b"').parts).toEqual([
      {
        id: "x",
        method: "PATCH",
        url: "Product(1)",
        headers: { "content-id": "x", prefer: "return=minimal, odata.continue-on-error" },
        body: { Price: 1 },
        bodyText: '{"Price":1}',
        dependsOn: [],
      },
    ]);
  });

  it("numbers changesets, one group each", () => {
    const text = crlf(
      ...batch(
        changeset("c1", request("POST A HTTP/1.1")),
        request("GET B HTTP/1.1"),
        changeset("c2", request("DELETE C HTTP/1.1"), request("PATCH D HTTP/1.1", { body: "{}" })),
      ),
    );
    expect(parseMultipartBatch(text, contentType).parts.map((part) => part.atomicityGroup)).toEqual([
      "changeset:1",
      undefined,
      "changeset:2",
      "changeset:2",
    ]);
  });

  it.each([
    ["multipart/mixed", 'Content-Type "multipart/mixed" is not multipart/mixed with a valid boundary'],
    ["application/json", "is not multipart/mixed with a valid boundary"],
    ["multipart/mixed; boundary=a@b", "with a valid boundary"],
    [`multipart/mixed; boundary=${"a".repeat(71)}`, "with a valid boundary"],
    ["multipart/mixed; boundary=batch_1; x", "with a valid boundary"],
  ])("Content-Type %s → 400 InvalidBatch", (type, message) => {
    const error = thrown(() => parseMultipartBatch(crlf(...batch(request("GET A HTTP/1.1"))), type));
    expect([error.status, error.code]).toEqual([400, "InvalidBatch"]);
    expect(error.message).toMatch(/^The batch: Content-Type /);
    expect(error.message).toContain(message);
  });

  const get = request("GET A HTTP/1.1");
  it.each([
    // name, text, code, message fragment
    ["no opening boundary", ["GET A HTTP/1.1"], "InvalidBatch", 'The batch: no opening boundary "--batch_1"'],
    ["only a closing boundary", ["--batch_1--"], "InvalidBatch", "no opening boundary"],
    ["no closing boundary", ["--batch_1", ...get], "InvalidBatch", 'no closing boundary "--batch_1--"'],
    ["no Content-Type", batch(["", "GET A HTTP/1.1"]), "InvalidBatch", 'part 1: Content-Type "" is'],
    [
      "a text/plain part",
      batch(get, ["Content-Type: text/plain", "", "hello"]),
      "InvalidBatch",
      'part 2: Content-Type "text/plain" is neither application/http nor multipart/mixed (a changeset)',
    ],
    [
      "base64",
      batch(["Content-Type: application/http", "Content-Transfer-Encoding: base64"]),
      "InvalidBatch",
      'part 1: Content-Transfer-Encoding "base64"',
    ],
    ["no request line", batch(["Content-Type: application/http"]), "InvalidBatch", 'part 1: malformed request line ""'],
    [
      "no HTTP version",
      batch(request("GET A", { id: "q" })),
      "InvalidBatch",
      'part 1 (id "q"): malformed request line "GET A"',
    ],
    ["HTTP/2", batch(request("GET A HTTP/2")), "InvalidBatch", "malformed request line"],
    ["a space too many", batch(request("GET  A HTTP/1.1")), "InvalidBatch", "malformed request line"],
    [
      "PUT",
      batch(get, request("PUT A HTTP/1.1", { id: "u" })),
      "InvalidBatch",
      'part 2 (id "u"): method "PUT" is not supported',
    ],
    ["lower-case get", batch(request("get A HTTP/1.1")), "InvalidBatch", 'method "get"'],
    ["MERGE", batch(request("MERGE A HTTP/1.1")), "InvalidBatch", 'method "MERGE"'],
    [
      "a malformed part header",
      batch(["Content-Type application/http", "", "GET A HTTP/1.1"]),
      "InvalidBatch",
      'part 1: malformed header line "Content-Type application/http"',
    ],
    ["a NUL in a header", batch(request("GET A HTTP/1.1", { headers: ["Accept: a\0"] })), "InvalidBatch", "malformed"],
    [
      "a folded header",
      batch(request("GET A HTTP/1.1", { headers: ["Accept: a", " b"] })),
      "InvalidBatch",
      'malformed header line " b"',
    ],
    [
      "a malformed request header",
      batch(request("POST A HTTP/1.1", { id: "h", headers: ["{}"] })),
      "InvalidBatch",
      'part 1 (id "h"): malformed header line "{}"',
    ],
    [
      "a body that is not JSON",
      batch(get, request("POST A HTTP/1.1", { id: "j", body: "{Name:1}" })),
      "InvalidBatch",
      'part 2 (id "j"): the body is not valid JSON',
    ],
    [
      "a bad Content-ID",
      batch(request("GET A HTTP/1.1", { id: "<a@b>" })),
      "InvalidBatch",
      'part 1 (id "<a@b>"): the Content-ID must be',
    ],
    [
      "a repeated Content-ID",
      batch(request("GET A HTTP/1.1", { id: "1" }), request("GET B HTTP/1.1", { id: "1" })),
      "InvalidBatch",
      'part 2 (id "1"): its id is already used by part 1',
    ],
    [
      "a reference to nothing",
      batch(request("POST $9/Details HTTP/1.1", { id: "1" })),
      "InvalidBatch",
      'part 1 (id "1"): the url starts with "$9", which names no request',
    ],
    [
      "a nested batch",
      batch(request("POST /api/$batch HTTP/1.1")),
      "InvalidBatch",
      "part 1: a batch cannot contain another batch",
    ],
    [
      "a changeset without boundary",
      batch(["Content-Type: multipart/mixed", ""]),
      "InvalidBatch",
      "part 1: the changeset's Content-Type has no valid boundary",
    ],
    [
      "an unclosed changeset",
      batch(["Content-Type: multipart/mixed; boundary=c", "", "--c", ...get]),
      "InvalidBatch",
      'changeset 1: no closing boundary "--c--"',
    ],
    [
      "a GET in a changeset",
      batch(get, changeset("c", request("POST A HTTP/1.1"), request("GET A HTTP/1.1", { id: "g" }))),
      "InvalidBatch",
      'part 3 (id "g"): a GET request cannot be in changeset 1',
    ],
    [
      "a changeset in a changeset",
      batch(changeset("c", request("POST A HTTP/1.1"), changeset("d", request("POST A HTTP/1.1")))),
      "InvalidBatch",
      "part 2: changeset 1 contains a changeset; they cannot nest",
    ],
    // counted before any body is parsed: 65 parts with bodies that are not JSON
    [
      "65 parts",
      batch(...Array.from({ length: 65 }, () => request("POST A HTTP/1.1", { body: "not json" }))),
      "BatchTooLarge",
      "more than 64 requests",
    ],
    [
      "65 parts in changesets",
      batch(get, changeset("c", ...Array.from({ length: 64 }, () => request("POST A HTTP/1.1")))),
      "BatchTooLarge",
      "more than 64 requests",
    ],
  ])("%s → 400 %s", (_name, lines, code, message) => {
    const error = thrown(() => parseMultipartBatch(crlf(...lines), contentType));
    expect([error.status, error.code]).toEqual([400, code]);
    expect(error.message).toContain(message);
  });

  it("refuses a changeset with more writes than the limit, before reading any body", () => {
    const text = crlf(
      ...batch(changeset("c", ...Array.from({ length: 3 }, () => request("POST A HTTP/1.1", { body: "?" })))),
    );
    const error = thrown(() =>
      parseMultipartBatch(text, contentType, { ...defaultBatchLimits, maxChangesetWrites: 2 }),
    );
    expect([error.code, error.message]).toEqual([
      "BatchTooLarge",
      "part 3: changeset 1 has more than 2 write requests; split it into several changesets.",
    ]);
  });
});
