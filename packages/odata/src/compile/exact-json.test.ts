import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ExactNumber, parseExactJson, writeExactJson } from "./exact-json.js";

describe("exact JSON", () => {
  it("keeps every number's text, however many digits it has", () => {
    const text = '[{"Guid" : "a", "Quantity" : 12345678901234.5678, "n": -0.0100, "e": 1E+2, "x": [1, {"y": 0}]}]';
    const value = parseExactJson(text) as any[];
    expect(value[0].Quantity).toEqual(new ExactNumber("12345678901234.5678"));
    expect(writeExactJson(value)).toBe(
      '[{"Guid":"a","Quantity":12345678901234.5678,"n":-0.0100,"e":1E+2,"x":[1,{"y":0}]}]',
    );
  });

  it("reads what JSON.parse reads and writes what it can read back", () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        const exact = writeExactJson(parseExactJson(text));
        expect(JSON.parse(exact)).toEqual(JSON.parse(text));
      }),
    );
  });

  it("treats __proto__ as a plain key", () => {
    const value = parseExactJson('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(writeExactJson(value)).toBe('{"__proto__":{"polluted":true}}');
  });

  it("writes values computed in TypeScript as JSON does", () => {
    expect(writeExactJson({ a: undefined, b: 'x"y', c: 1.5, d: new Date(0), e: null })).toBe(
      '{"b":"x\\"y","c":1.5,"d":"1970-01-01T00:00:00.000Z","e":null}',
    );
  });

  it("refuses text that is not JSON", () => {
    expect(() => parseExactJson("[1,")).toThrow(SyntaxError);
    expect(() => parseExactJson("{} x")).toThrow(SyntaxError);
  });
});
