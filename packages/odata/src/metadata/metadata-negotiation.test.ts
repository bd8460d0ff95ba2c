import { describe, expect, it } from "vitest";
import { metadataFormat, metadataVersion, odataVersion } from "./metadata-negotiation.js";

describe("metadataFormat()", () => {
  it.each<[string | undefined, string | undefined, "xml" | "json"]>([
    [undefined, undefined, "xml"],
    ["json", undefined, "json"],
    ["JSON", undefined, "json"],
    ["application/json;odata.metadata=minimal", undefined, "json"],
    ["xml", "application/json", "xml"],
    ["application/xml", undefined, "xml"],
    // Accept: JSON only when ranked above XML
    [undefined, "application/json", "json"],
    [undefined, "application/json;odata.metadata=minimal", "json"],
    [undefined, "application/xml", "xml"],
    [undefined, "application/json, text/plain, */*", "xml"], // axios, as odata2ts sends it
    [undefined, "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "xml"], // a browser
    [undefined, "application/json, application/xml;q=0.5", "json"],
    [undefined, "application/xml;q=0.5, application/json", "json"],
    [undefined, "application/json;q=0.5, application/*", "xml"],
    [undefined, "text/plain", "xml"],
  ])("$format=%s, Accept: %s → %s", (format, accept, expected) => {
    expect(metadataFormat(format, accept)).toBe(expected);
  });

  it("refuses a $format it cannot serve, naming the ones it can", () => {
    expect(() => metadataFormat("atom", undefined)).toThrow(
      expect.objectContaining({ status: 400, code: "UnsupportedFormat", target: "$format" }),
    );
  });
});

describe("metadataVersion()", () => {
  it.each<[string | undefined, "4.0" | "4.01"]>([
    [undefined, "4.0"],
    ["4.0", "4.0"],
    ["3.0", "4.0"],
    ["4.01", "4.01"],
    [" 4.01 ", "4.01"],
    ["5.0", "4.01"],
    ["latest", "4.0"],
  ])("OData-MaxVersion: %s → %s", (header, expected) => {
    expect(metadataVersion(header)).toBe(expected);
  });
});

describe("odataVersion()", () => {
  it.each<[string | undefined, "4.0" | "4.01"]>([
    [undefined, "4.01"],
    ["4.0", "4.0"],
    ["4.00", "4.0"],
    ["3.0", "4.0"],
    ["4.01", "4.01"],
    ["4.1", "4.01"],
    ["5.0", "4.01"],
    ["latest", "4.01"],
  ])("OData-MaxVersion: %s → %s for data (4.01 unless the client says otherwise)", (header, expected) => {
    expect(odataVersion(header, "4.01")).toBe(expected);
  });
});
