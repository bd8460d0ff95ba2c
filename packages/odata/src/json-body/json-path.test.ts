import { describe, expect, it } from "vitest";
import { jsonPathAt } from "./json-path.js";

/** The path at the first occurrence of `marker` in `text`. */
const pathOf = (text: string, marker: string) => jsonPathAt(text, text.indexOf(marker));

describe("jsonPathAt", () => {
  it.each([
    ['{"Cost": 7}', "7", "Cost"],
    ['{"Details":[{"Quantity":1},{"Quantity":2},{"Quantity":3}]}', "3", "Details[2].Quantity"],
    ['{"a":{"b":{"c":7}}}', "7", "a.b.c"],
    ["[1,[2,7]]", "7", "[1][1]"],
    ["7", "7", ""],
    ['{"a b":7}', "7", '["a b"]'],
    ['{"q\\"x":7}', "7", '["q\\"x"]'],
    ['{"s":"a,b]}","t":[",",{"u":7}]}', "7", "t[1].u"],
    ['{"a":[1,2],"b":{"c":1},"d":7}', "7", "d"],
    ['{ "a" : [ 1 , 2 , 7 ] }', "7", "a[2]"],
  ])("%s → %s", (text, marker, expected) => {
    expect(pathOf(text, marker)).toBe(expected);
  });
});
