/**
 * The flat-row writers against what they stand for: a string value is written exactly as
 * JSON.stringify writes it, whatever it holds (quotes, backslashes, control characters, any
 * Unicode, unpaired surrogates), and so is every other value type's JSON form.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { writerFor } from "./output-value.js";

const plain = { ieee754Compatible: false };

describe("writerFor", () => {
  it("writes any string as JSON.stringify does", () => {
    const write = writerFor("string", plain);
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: "grapheme" }), fc.string()), (s) => {
        expect(write(s)).toBe(JSON.stringify(s));
      }),
      { numRuns: 2000 },
    );
    for (const s of ['a"b', "a\\b", "tab\there", "nul\u0000", "\u001f", "\ud800", "\udc00x", "😀", "\u2028", "\u007f"])
      expect(write(s)).toBe(JSON.stringify(s));
  });

  it("writes null for a missing value, and decimals as their exact text (as strings with IEEE754Compatible)", () => {
    expect(writerFor("guid", plain)(null)).toBe("null");
    expect(writerFor("string", plain)(undefined)).toBe("null");
    expect(writerFor("decimal", plain)("12.5000")).toBe("12.5000");
    expect(writerFor("decimal", { ieee754Compatible: true })("12.5000")).toBe('"12.5000"');
    expect(writerFor("boolean", plain)(true)).toBe("true");
  });

  it("writes a uuid's text as JSON.stringify does (without looking for what to escape: a uuid has nothing)", () => {
    const write = writerFor("guid", plain);
    fc.assert(
      fc.property(fc.uuid(), (guid) => {
        expect(write(guid)).toBe(JSON.stringify(guid));
      }),
    );
  });
});
