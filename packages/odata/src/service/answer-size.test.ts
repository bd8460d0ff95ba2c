import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkAnswerSize, exceeds, utf8Length } from "./answer-size.js";

describe("answer sizes", () => {
  it("counts UTF-8 bytes as the encoder does, surrogate pairs and lone surrogates too", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.oneof(fc.constantFrom("\ud83d", "\ude00"), fc.string({ unit: "binary", maxLength: 1 })) }),
        (text) => {
          expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
        },
      ),
    );
    expect(utf8Length("aé€😀")).toBe(1 + 2 + 3 + 4);
    expect(utf8Length("\ud800x\udc00")).toBe(new TextEncoder().encode("\ud800x\udc00").length);
  });

  it("tells whether a text is over a limit, deciding by its length where that is enough", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.oneof(fc.constantFrom("\ud83d", "\ude00"), fc.string({ unit: "binary", maxLength: 1 })) }),
        fc.nat(200),
        (text, limit) => {
          expect(exceeds(text, limit)).toBe(new TextEncoder().encode(text).length > limit);
        },
      ),
    );
  });

  it("refuses an answer over its budget with 400 AnswerTooLarge naming the limit", () => {
    expect(() => checkAnswerSize("x".repeat(10), 10)).not.toThrow();
    expect(() => checkAnswerSize("€".repeat(4), 10)).toThrow(
      expect.objectContaining({ status: 400, code: "AnswerTooLarge", message: expect.stringContaining("10 bytes") }),
    );
  });
});
