import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findJsonSyntaxError } from "./json-syntax-error.js";

describe("findJsonSyntaxError", () => {
  it.each([
    ["", 0, "found the end of the input where a value was expected"],
    ["   ", 3, "a value was expected"],
    ['{"a":}', 5, 'found "}" where a value was expected'],
    ["[1,]", 3, 'found "]" where a value was expected'],
    ['{"a" 1}', 5, "':' was expected"],
    ['{"a":1,}', 7, "a property name was expected"],
    ["{a:1}", 1, "a property name was expected"],
    ['{"a":1 "b":2}', 7, "',' or '}' was expected"],
    ["[1 2]", 3, "',' or ']' was expected"],
    ["[1] x", 4, 'found "x" where the end of the input was expected'],
    ['"abc', 4, "a closing quote was expected"],
    ['"a\nb"', 2, "control characters must be escaped"],
    ['"\\x"', 2, "an escape sequence was expected"],
    ['"\\u12G4"', 5, "a hexadecimal digit was expected"],
    ["01", 1, "the end of the input was expected"],
    ["-", 1, "a digit was expected"],
    ["1.", 2, "a digit was expected"],
    ["1.e5", 2, "a digit was expected"],
    ["1e+", 3, "a digit was expected"],
    ["tru", 3, "'true' was expected"],
    ["nul1", 3, "'null' was expected"],
    ["NaN", 0, "a value was expected"],
    ["\uFEFF{}", 0, "a value was expected"],
    ['{"a":[1,{"b":\'x\'}]}', 13, 'found "\'" where a value was expected'],
  ])("%j fails at %i", (text, position, problem) => {
    const found = findJsonSyntaxError(text);
    expect(found?.position).toBe(position);
    expect(found?.problem).toContain(problem);
  });

  it("agrees with JSON.parse on which texts are JSON", () => {
    const texts = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.string({ unit: fc.constantFrom(...'{}[]":,-0123456789.eE+tfrunlsa\\ \n') }),
    );
    fc.assert(
      fc.property(texts, (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        expect(findJsonSyntaxError(text) === undefined).toBe(valid);
      }),
      { numRuns: 2000 },
    );
  });
});
