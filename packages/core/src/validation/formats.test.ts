import { describe, expect, it } from "vitest";
import { guidPattern, isCalendarDate, isDateTimeWithOffset, odataString, odataStringValue } from "./formats.js";

describe("isCalendarDate", () => {
  it.each(["2024-02-29", "2000-02-29", "0001-01-01", "9999-12-31", "2023-04-30"])("accepts %s", (text) => {
    expect(isCalendarDate(text)).toBe(true);
  });
  it.each([
    "2023-02-29",
    "1900-02-29",
    "2023-04-31",
    "2023-13-01",
    "2023-00-10",
    "2023-01-00",
    "0000-01-01",
    "2023-1-1",
    "2023-01-01T00:00:00Z",
    "",
  ])("refuses %s", (text) => {
    expect(isCalendarDate(text)).toBe(false);
  });
});

describe("isDateTimeWithOffset", () => {
  it.each([
    "2024-05-01T09:30:00Z",
    "2024-05-01T09:30Z",
    "2024-05-01T09:30:59.123456789-05:30",
    "2024-12-31T23:59:59+14:00",
  ])("accepts %s", (text) => {
    expect(isDateTimeWithOffset(text)).toBe(true);
  });
  it.each([
    "2024-05-01T09:30:00",
    "2024-05-01 09:30:00Z",
    "2024-05-01T24:00:00Z",
    "2024-05-01T09:60:00Z",
    "2024-05-01T09:30:60Z",
    "2024-02-30T09:30:00Z",
    "2024-05-01T09:30:00+0200",
    "2024-05-01T09:30:00.Z",
    "2024-05-01",
  ])("refuses %s", (text) => {
    expect(isDateTimeWithOffset(text)).toBe(false);
  });
});

describe("guidPattern", () => {
  it("matches 8-4-4-4-12 hex in any case, nothing else", () => {
    expect(guidPattern.test("0F8FAD5B-d9cb-469f-a165-70867728950e")).toBe(true);
    expect(guidPattern.test("0f8fad5bd9cb469fa16570867728950e")).toBe(false);
    expect(guidPattern.test("{0f8fad5b-d9cb-469f-a165-70867728950e}")).toBe(false);
    expect(guidPattern.test("0f8fad5b-d9cb-469f-a165-70867728950g")).toBe(false);
  });
});

describe("odataString and odataStringValue", () => {
  it.each([
    ["O'Brien", "'O''Brien'"],
    ["", "''"],
    ["''", "''''''"],
    ["plain", "'plain'"],
  ])("%j is the literal %s and back", (text, literal) => {
    expect(odataString(text)).toBe(literal);
    expect(odataStringValue(literal)).toBe(text);
  });
});
