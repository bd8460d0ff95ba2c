import { describe, expect, it } from "vitest";
import { closingQuote } from "./json-text.js";

describe("closingQuote", () => {
  it.each([
    ['"abc" x', 4],
    ['"" x', 1],
    ['"a\\"b" x', 5],
    ['"a\\\\" x', 4],
    ['"a\\\\\\"b" x', 7],
    ['"\\\\\\\\" x', 5],
    ['"unterminated', 13],
    ['"unterminated\\"', 15],
  ])("%s closes at %i", (text, expected) => {
    expect(closingQuote(text, 0)).toBe(expected);
  });
});
