import { rejection } from "@bizdata/test-kit/service-error";
import { describe, expect, it } from "vitest";
import { defaultBodyLimits } from "../limits.js";
import { isIeee754Compatible, readJsonBody, withParsedBody } from "./request-json.js";

const post = (body: string, contentType?: string) =>
  new Request("http://localhost/api/Product", {
    method: "POST",
    body,
    headers: contentType === undefined ? {} : { "content-type": contentType },
  });

describe("readJsonBody", () => {
  it("takes a body handed over already parsed, without reading the request's text, and checks its type all the same", async () => {
    const handed = { Name: "Bolt", Cost: 1.25 };
    const request = withParsedBody(post('{"Name":"not read"}', "application/json"), handed);
    expect(await readJsonBody(request, defaultBodyLimits)).toBe(handed);
    // the text is still there for a route that reads it itself
    expect(await request.text()).toBe('{"Name":"not read"}');
    const wrongType = withParsedBody(post("{}", "text/plain"), handed);
    expect((await rejection(readJsonBody(wrongType, defaultBodyLimits))).status).toBe(415);
  });

  it.each([
    "application/json",
    "Application/JSON",
    "application/json; charset=utf-8",
    'application/json;charset="UTF-8"',
    "application/json;odata.metadata=minimal;IEEE754Compatible=true",
  ])("reads a body sent as %s", async (contentType) => {
    expect(await readJsonBody(post('{"Name":"Bolt"}', contentType), defaultBodyLimits)).toEqual({ Name: "Bolt" });
  });

  it.each([
    ["no Content-Type", undefined],
    ["text/plain", "text/plain"],
    ["a JSON-like type", "application/jsonx"],
    ["a suffix type", "application/merge-patch+json"],
    ["another charset", "application/json; charset=iso-8859-1"],
  ])("refuses %s as 415 UnsupportedMediaType", async (_, contentType) => {
    const error = await rejection(readJsonBody(post("{}", contentType), defaultBodyLimits));
    expect([error.status, error.code, error.target]).toEqual([415, "UnsupportedMediaType", "Content-Type"]);
  });

  it.each([
    ['{"a":1}', { maxBytes: 6, maxDepth: 4 }, 413, "PayloadTooLarge"],
    ["[[1]]", { maxBytes: 100, maxDepth: 1 }, 400, "JsonTooDeep"],
    ["{", { maxBytes: 100, maxDepth: 4 }, 400, "InvalidJson"],
    ["", { maxBytes: 100, maxDepth: 4 }, 400, "EmptyBody"],
    ['{"a":1,"a":2}', { maxBytes: 100, maxDepth: 4 }, 400, "DuplicateJsonKey"],
    ['{"a":1e400}', { maxBytes: 100, maxDepth: 4 }, 400, "NumberNotExact"],
  ])("applies the limits and JSON rules to %j", async (body, limits, status, code) => {
    const error = await rejection(readJsonBody(post(body, "application/json"), limits));
    expect([error.status, error.code]).toEqual([status, code]);
  });
});

describe("isIeee754Compatible", () => {
  it.each([
    [{ "content-type": "application/json;IEEE754Compatible=true" }, true],
    [{ "content-type": "application/json; ieee754compatible=TRUE" }, true],
    [{ "content-type": 'application/json;IEEE754Compatible="true"' }, true],
    [{ accept: "application/json;odata.metadata=minimal;IEEE754Compatible=true" }, true],
    [{ accept: "text/plain, application/json;IEEE754Compatible=true;q=0.9" }, true],
    [{ "content-type": "application/json;IEEE754Compatible=false", accept: "application/json" }, false],
    [{ accept: "application/json;IEEE754Compatible=yes" }, false],
    [{ "content-type": "application/json" }, false],
    [{}, false],
  ])("%j → %s", (headers, expected) => {
    expect(isIeee754Compatible(new Headers(headers))).toBe(expected);
  });
});
