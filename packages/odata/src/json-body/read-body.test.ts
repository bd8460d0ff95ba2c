import { rejection } from "@bizdata/test-kit/service-error";
import { describe, expect, it } from "vitest";
import { readBody } from "./read-body.js";

const url = "http://localhost/api/Product";
const encoder = new TextEncoder();

/** A stream of `chunk` repeated `count` times (forever when omitted), recording pulls and cancels. */
function chunkedStream(chunk: Uint8Array, count = Number.POSITIVE_INFINITY) {
  const seen = { pulls: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      seen.pulls++;
      if (seen.pulls > count) controller.close();
      else controller.enqueue(chunk);
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

const post = (body: NonNullable<RequestInit["body"]>, headers: Record<string, string> = {}) =>
  new Request(url, { method: "POST", body, headers, duplex: "half" });

describe("readBody", () => {
  it.each([
    ["a string body", post('{"a":1}'), '{"a":1}'],
    ["no body", new Request(url), ""],
    ["an empty body", post(""), ""],
    ["a body of exactly the limit", post("x".repeat(16)), "x".repeat(16)],
    ["multi-byte characters", post("äöü€😀"), "äöü€😀"],
    ["a leading byte order mark (dropped, RFC 8259 §8.1)", post(new Uint8Array([0xef, 0xbb, 0xbf, 0x31])), "1"],
  ])("reads %s", async (_, request, expected) => {
    expect(await readBody(request, 16)).toBe(expected);
  });

  it("keeps a character split across chunks intact", async () => {
    const bytes = encoder.encode("€");
    const chunks = [bytes.slice(0, 1), bytes.slice(1)];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(next);
      },
    });
    expect(await readBody(post(stream), 16)).toBe("€");
  });

  it.each([
    ["a truncated sequence", [0xe2, 0x82]],
    ["a lone continuation byte", [0x80]],
    ["an overlong encoding", [0xc0, 0xaf]],
    ["an encoded surrogate", [0xed, 0xa0, 0x80]],
  ])("rejects %s as 400 InvalidBody", async (_, bytes) => {
    const error = await rejection(readBody(post(new Uint8Array(bytes)), 16));
    expect([error.status, error.code]).toEqual([400, "InvalidBody"]);
  });

  it("reads each body on its own after one that ended inside a character", async () => {
    // the decoder is shared: what the first body left must not complete the second's first byte
    await rejection(readBody(post(new Uint8Array([0x7b, 0xe2, 0x82])), 16));
    const error = await rejection(readBody(post(new Uint8Array([0xac, 0x31])), 16));
    expect([error.status, error.code]).toEqual([400, "InvalidBody"]);
    expect(await readBody(post(new Uint8Array([0x31])), 16)).toBe("1");
  });

  it("rejects one byte over the limit as 413 PayloadTooLarge naming the limit", async () => {
    const error = await rejection(readBody(post("x".repeat(17)), 16));
    expect([error.status, error.code]).toEqual([413, "PayloadTooLarge"]);
    expect(error.message).toContain("16 bytes");
  });

  it("rejects a Content-Length over the limit before reading", async () => {
    const { stream, seen } = chunkedStream(encoder.encode("x"), 1);
    const error = await rejection(readBody(post(stream, { "content-length": "17" }), 16));
    expect([error.status, error.code]).toEqual([413, "PayloadTooLarge"]);
    expect(seen.pulls).toBeLessThanOrEqual(1); // at most the stream's own start-up pull, none by readBody
  });

  it("still refuses a body over the limit whose Content-Length understates it", async () => {
    const { stream } = chunkedStream(new Uint8Array(10), 3);
    const error = await rejection(readBody(post(stream, { "content-length": "5" }), 16));
    expect(error.status).toBe(413);
  });

  it("stops an endless chunked body without Content-Length as soon as it passes the limit", async () => {
    const { stream, seen } = chunkedStream(new Uint8Array(64 * 1024));
    const request = post(stream);
    expect(request.headers.get("content-length")).toBeNull();
    const error = await rejection(readBody(request, 1024 * 1024));
    expect([error.status, error.code]).toEqual([413, "PayloadTooLarge"]);
    expect(seen.pulls).toBeLessThan(20); // 17 chunks pass the limit, plus the stream's read-ahead
    expect(seen.cancelled).toBe(true);
  });
});
