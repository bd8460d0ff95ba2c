import { ServiceError } from "@bizdata/core";
import { describe, expect, it } from "vitest";
import { defaultBatchLimits } from "../limits.js";
import { parseJsonBatch } from "./parse-json-batch.js";

function thrown(run: () => unknown): ServiceError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error("no error thrown");
}

const get = (id: string, url = "Product") => ({ id, method: "GET", url });
const post = (id: string, atomicityGroup?: string, extra: object = {}) => ({
  id,
  method: "POST",
  url: "Product",
  body: { Name: id },
  ...(atomicityGroup === undefined ? {} : { atomicityGroup }),
  ...extra,
});

describe("parseJsonBatch", () => {
  it("reads requests: methods in any case, headers lower-cased, a null body left out", () => {
    const parsed = parseJsonBatch({
      requests: [
        { id: "r1", method: "get", url: "Product(1)?$select=Name", headers: { Accept: "application/json" } },
        { id: "r2", method: "Patch", url: "/api/Product(1)", body: { Price: 1.1 }, headers: {} },
        { id: "r3", method: "DELETE", url: "http://host/api/Product(2)", body: null },
      ],
    });
    expect(parsed).toEqual({
      format: "json",
      parts: [
        {
          id: "r1",
          method: "GET",
          url: "Product(1)?$select=Name",
          headers: { accept: "application/json" },
          dependsOn: [],
        },
        { id: "r2", method: "PATCH", url: "/api/Product(1)", headers: {}, body: { Price: 1.1 }, dependsOn: [] },
        { id: "r3", method: "DELETE", url: "http://host/api/Product(2)", headers: {}, dependsOn: [] },
      ],
    });
    expect("body" in parsed.parts[2]!).toBe(false);
  });

  it("generates p<n> for requests without an id", () => {
    const parsed = parseJsonBatch({ requests: [{ method: "GET", url: "A" }, get("x"), { method: "GET", url: "B" }] });
    expect(parsed.parts.map((part) => part.id)).toEqual(["p1", "x", "p3"]);
  });

  it("keeps atomicity groups and dependsOn, and adds the request a $<id> url refers to", () => {
    const parsed = parseJsonBatch({
      requests: [
        post("a", "g"),
        post("b", "g", { url: "$a/Details", dependsOn: ["a"] }),
        post("c", undefined, { url: "$b/Details", dependsOn: ["g"] }),
        get("d", "$metadata"),
        get("e", "$c?$select=Name"),
      ],
    });
    expect(parsed.parts.map((part) => [part.id, part.atomicityGroup, part.dependsOn])).toEqual([
      ["a", "g", []],
      ["b", "g", ["a"]],
      ["c", undefined, ["g", "b"]],
      ["d", undefined, []],
      ["e", undefined, ["c"]],
    ]);
  });

  it("accepts an empty batch and sixty-four requests", () => {
    expect(parseJsonBatch({ requests: [] }).parts).toEqual([]);
    const many = Array.from({ length: 64 }, (_, index) => post(`r${index}`, "g"));
    expect(parseJsonBatch({ requests: many }).parts).toHaveLength(64);
  });

  it.each([
    // requests, code, message fragment
    [null, "InvalidBatch", 'The batch: it must be a JSON object with a "requests" array'],
    [[], "InvalidBatch", '"requests" array'],
    [{ requests: {} }, "InvalidBatch", '"requests" array'],
    [{ requests: [1] }, "InvalidBatch", "part 1: a request must be a JSON object"],
    [{ requests: [{ id: "a", url: "A" }] }, "InvalidBatch", 'part 1 (id "a"): "method" is missing'],
    [{ requests: [{ id: "a", method: "GET" }] }, "InvalidBatch", 'part 1 (id "a"): "url" is missing'],
    [{ requests: [get("a"), { id: "b", method: "PUT", url: "A" }] }, "InvalidBatch", 'part 2 (id "b"): method "PUT"'],
    [{ requests: [{ id: "b", method: "merge", url: "A" }] }, "InvalidBatch", 'method "MERGE" is not supported'],
    [{ requests: [{ method: "OPTIONS", url: "A" }] }, "InvalidBatch", 'part 1: method "OPTIONS"'],
    [{ requests: [{ id: 1, method: "GET", url: "A" }] }, "InvalidBatch", 'part 1: "id" must be a string'],
    [{ requests: [get("a b")] }, "InvalidBatch", 'part 1: "id" must be a string of letters'],
    [{ requests: [get("a"), get("a")] }, "InvalidBatch", 'part 2 (id "a"): its id is already used by part 1'],
    [
      { requests: [get("p2"), { method: "GET", url: "B" }] },
      "InvalidBatch",
      'part 2: has no id, and its generated id "p2" is already used by part 1',
    ],
    [{ requests: [{ ...get("a"), headers: { Accept: 1 } }] }, "InvalidBatch", 'part 1 (id "a"): header "Accept" must'],
    [{ requests: [{ ...get("a"), headers: { "A b": "1" } }] }, "InvalidBatch", 'header "A b" is not a valid HTTP'],
    [{ requests: [{ ...get("a"), headers: { A: "1\r\nB: 2" } }] }, "InvalidBatch", 'header "A" is not a valid'],
    [{ requests: [{ ...get("a"), headers: [] }] }, "InvalidBatch", '"headers" must be an object'],
    [{ requests: [{ ...get("a"), dependsOn: "x" }] }, "InvalidBatch", '"dependsOn" must be an array'],
    [{ requests: [{ ...get("a"), dependsOn: ["zz"] }] }, "InvalidBatch", 'names "zz", which is no earlier request'],
    [{ requests: [{ ...get("a"), dependsOn: ["b"] }, get("b")] }, "InvalidBatch", "which is the later part 2"],
    [{ requests: [{ ...get("a"), dependsOn: ["a"] }] }, "InvalidBatch", 'names "a", which is the request itself'],
    [{ requests: [post("a", "g"), post("b", "g", { dependsOn: ["g"] })] }, "InvalidBatch", "its own atomicity group"],
    [{ requests: [get("a"), post("b", "a")] }, "InvalidBatch", 'atomicity group "a" has the same name as a request id'],
    [{ requests: [post("a", "g"), post("b", "g b")] }, "InvalidBatch", 'part 2 (id "b"): "atomicityGroup" must be'],
    [
      { requests: [post("a", "g"), get("b"), post("c", "g")] },
      "InvalidBatch",
      'part 3 (id "c"): the requests of atomicity group "g" must be adjacent, starting at part 1',
    ],
    [
      { requests: [post("a", "g"), { ...get("b"), atomicityGroup: "g" }] },
      "InvalidBatch",
      'part 2 (id "b"): a GET request cannot be in atomicity group "g"',
    ],
    [
      { requests: [post("a", undefined, { url: "$b/Details" })] },
      "InvalidBatch",
      'url starts with "$b", which names no',
    ],
    [{ requests: [get("a", "$a")] }, "InvalidBatch", 'url starts with "$a", which is the request itself'],
    [{ requests: [post("a", "g"), post("b", undefined, { url: "$g" })] }, "InvalidBatch", 'starts with "$g", which'],
    [{ requests: [post("a", undefined, { url: "$batch" })] }, "InvalidBatch", "cannot contain another batch"],
    [{ requests: [post("a", undefined, { url: "/api/$batch?x=1" })] }, "InvalidBatch", 'part 1 (id "a"): a batch'],
    // BatchTooLarge comes first: the 65 requests are not even looked at
    [{ requests: Array.from({ length: 65 }, () => null) }, "BatchTooLarge", "more than 64 requests"],
  ])("%j → 400 %s", (body, code, message) => {
    const error = thrown(() => parseJsonBatch(body));
    expect([error.status, error.code]).toEqual([400, code]);
    expect(error.message).toContain(message);
  });

  it("refuses a group with more writes than the limit, naming the part and the group", () => {
    const error = thrown(() =>
      parseJsonBatch(
        { requests: [post("a", "g"), post("b", "g"), post("c", "g")] },
        { ...defaultBatchLimits, maxChangesetWrites: 2 },
      ),
    );
    expect([error.code, error.message]).toEqual([
      "BatchTooLarge",
      'part 3 (id "c"): atomicity group "g" has more than 2 write requests; split it into several changesets.',
    ]);
  });

  it("keeps __proto__ as an ordinary header name", () => {
    const headers = JSON.parse('{"__proto__":"x","A":"1","a":"2"}');
    const part = parseJsonBatch({ requests: [{ ...get("a"), headers }] }).parts[0]!;
    expect(Object.getPrototypeOf(part.headers)).toBe(Object.prototype);
    expect(Object.entries(part.headers)).toEqual([
      ["__proto__", "x"],
      ["a", "1, 2"],
    ]);
  });
});
