import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BatchResponsePart } from "./batch-types.js";
import { formatJsonBatchResponse } from "./format-json-response.js";
import { formatMultipartBatchResponse } from "./format-multipart-response.js";
import { bodyParts, multipartBoundary, readEntity } from "./multipart.js";
import { parseMultipartBatch } from "./parse-multipart-batch.js";

const json = { "content-type": "application/json;odata.metadata=minimal" };

describe("formatJsonBatchResponse", () => {
  it("embeds a JSON body as its text, anything else as a string", () => {
    const text = formatJsonBatchResponse([
      { id: "1", status: 200, headers: json, body: '{"Price":12345678901234567890}' },
      {
        id: "2",
        status: 201,
        headers: { "Content-Type": "application/problem+json" },
        body: "[1]",
        atomicityGroup: "g",
      },
      { id: "3", status: 204, headers: {}, atomicityGroup: "g" },
      { id: "4", status: 400, headers: { "content-type": "text/plain" }, body: 'bad "x"\n' },
      { id: "5", status: 200, headers: { "content-type": "application/jsonx" }, body: "{}" },
    ]);
    expect(text).toBe(
      '{"responses":[' +
        '{"id":"1","status":200,"headers":{"content-type":"application/json;odata.metadata=minimal"},"body":{"Price":12345678901234567890}},' +
        '{"id":"2","status":201,"headers":{"Content-Type":"application/problem+json"},"body":[1],"atomicityGroup":"g"},' +
        '{"id":"3","status":204,"headers":{},"atomicityGroup":"g"},' +
        '{"id":"4","status":400,"headers":{"content-type":"text/plain"},"body":"bad \\"x\\"\\n"},' +
        '{"id":"5","status":200,"headers":{"content-type":"application/jsonx"},"body":"{}"}]}',
    );
    expect(JSON.parse(text).responses[3].body).toBe('bad "x"\n');
  });

  it("answers an empty batch with no responses", () => {
    expect(formatJsonBatchResponse([])).toBe('{"responses":[]}');
  });
});

const request = (line: string, id?: string) => [
  "Content-Type: application/http",
  ...(id === undefined ? [] : [`Content-ID: ${id}`]),
  "",
  line,
  "",
];
const parsed = parseMultipartBatch(
  [
    "--b",
    ...request("GET Product HTTP/1.1", "r"),
    "--b",
    "Content-Type: multipart/mixed; boundary=c1",
    "",
    "--c1",
    ...request("POST Product HTTP/1.1", "1"),
    "--c1",
    ...request("POST $1/Details HTTP/1.1", "2"),
    "--c1--",
    "--b",
    "Content-Type: multipart/mixed; boundary=c2",
    "",
    "--c2",
    ...request("DELETE Product(1) HTTP/1.1", "3"),
    "--c2",
    ...request("PATCH Product(2) HTTP/1.1", "4"),
    "--c2--",
    "--b",
    ...request("DELETE Product(3) HTTP/1.1"),
    "--b--",
  ].join("\r\n"),
  "multipart/mixed; boundary=b",
);

/** the response with its random boundaries replaced by fixed names */
function format(parts: readonly BatchResponsePart[]): { contentType: string; body: string } {
  const { contentType, body } = formatMultipartBatchResponse(parts, parsed);
  const fixed = (text: string) =>
    text.replace(/batchresponse_[0-9a-f-]{36}/g, "B").replace(/changesetresponse_[0-9a-f-]{36}/g, "C");
  return { contentType: fixed(contentType), body: fixed(body) };
}

const http = (lines: string[]) => ["Content-Type: application/http", "Content-Transfer-Encoding: binary", ...lines];

describe("formatMultipartBatchResponse", () => {
  it("writes status lines, headers and bodies, echoes Content-ID and nests changesets, all in CRLF", () => {
    const result = format([
      { id: "r", status: 200, headers: json, body: '{"value":[]}' },
      { id: "1", status: 201, headers: { ...json, Location: "Product(9)" }, body: '{"Id":9}' },
      { id: "2", status: 201, headers: json, body: '{"Id":10}' },
      { id: "3", status: 204, headers: {} },
      { id: "4", status: 404, headers: { "content-type": "text/plain" }, body: "no Product(2)" },
      { id: "p6", status: 204, headers: {} },
    ]);
    expect(result.contentType).toBe("multipart/mixed; boundary=B");
    expect(result.body).toBe(
      [
        "--B",
        ...http(["Content-ID: r", "", "HTTP/1.1 200 OK", "content-type: application/json;odata.metadata=minimal"]),
        "",
        '{"value":[]}',
        "--B",
        "Content-Type: multipart/mixed; boundary=C",
        "",
        "--C",
        ...http(["Content-ID: 1", "", "HTTP/1.1 201 Created", "content-type: application/json;odata.metadata=minimal"]),
        "Location: Product(9)",
        "",
        '{"Id":9}',
        "--C",
        ...http(["Content-ID: 2", "", "HTTP/1.1 201 Created", "content-type: application/json;odata.metadata=minimal"]),
        "",
        '{"Id":10}',
        "--C--",
        "",
        // §11.7.4: the failed changeset is one response, the failure's
        "--B",
        ...http(["Content-ID: 4", "", "HTTP/1.1 404 Not Found", "content-type: text/plain", "", "no Product(2)"]),
        // no Content-ID: the request had none
        "--B",
        ...http(["", "HTTP/1.1 204 No Content", "", ""]),
        "--B--",
        "",
      ].join("\r\n"),
    );
  });

  it("keeps a header value on its line", () => {
    const { body } = format([{ id: "r", status: 200, headers: { "x-note": "a\r\n--B\r\nb" } }]);
    expect(body).toContain("x-note: a --B b\r\n");
  });

  it("leaves out requests that got no response, and refuses a response to no request", () => {
    expect(format([{ id: "r", status: 500, headers: {} }]).body).toBe(
      ["--B", ...http(["Content-ID: r", "", "HTTP/1.1 500 Internal Server Error", "", ""]), "--B--", ""].join("\r\n"),
    );
    expect(() => format([{ id: "zz", status: 200, headers: {} }])).toThrow('No request in the batch has the id "zz".');
  });

  it("writes what a multipart reader reads back: Content-ID, status and body of each response", () => {
    /** [Content-ID, status, body] of an application/http part */
    type Seen = [string | undefined, number, string];
    /** every application/http part, changesets flattened */
    function read(lines: readonly string[], boundary: string): Seen[] {
      return [...bodyParts(lines, boundary, "response")].flatMap((part) => {
        const { headers, content } = readEntity(part, "response");
        const inner = multipartBoundary(headers["content-type"]!);
        if (inner !== undefined) return read(content, inner);
        const [statusLine = "", ...rest] = content;
        return [
          [headers["content-id"], Number(statusLine.split(" ")[1]), readEntity(rest, "response").content.join("\n")],
        ];
      });
    }
    const response = fc.record({
      status: fc.constantFrom(200, 201, 204, 400, 404, 500),
      body: fc.string({ unit: "binary-ascii" }), // line breaks and lines like "--x" included
    });
    const textBodies = fc.array(response, { minLength: 6, maxLength: 6 }).map((drawn) =>
      drawn.map(({ status, body }, index) => ({
        id: parsed.parts[index]!.id,
        status,
        headers: { "content-type": "text/plain" },
        body: body.replace(/\r/g, ""),
      })),
    );
    fc.assert(
      fc.property(textBodies, (responses) => {
        const { contentType, body } = formatMultipartBatchResponse(responses, parsed);
        const [r, one, two, three, four, last] = responses.map((response) => {
          const echoed = response.id === "p6" ? undefined : response.id;
          return [echoed, response.status, response.body] as Seen;
        });
        // a changeset with a failure answers with its first failure alone
        const changeset = (...members: Seen[]) => {
          const failure = members.find((member) => member[1] >= 400);
          return failure ? [failure] : members;
        };
        const expected = [[r!], changeset(one!, two!), changeset(three!, four!), [last!]].flat();
        expect(read(body.split(/\r?\n/), multipartBoundary(contentType)!)).toEqual(expected);
      }),
    );
  });
});
