/**
 * `$metadata` as the OASIS schemas and reference converter judge it: the XML validates against
 * edmx.xsd/edm.xsd, the JSON against the CSDL JSON schema, and the JSON is exactly what the OASIS
 * converter makes of the XML (in strict mode, which checks names for collisions, with nothing to
 * report) — so the two forms say the
 * same thing. For the sample model as every tenant kind sees it, in both versions, and for a model
 * built to reach the corners.
 */
import { sampleFeatures, sampleModel } from "@bizdata/examples";
import { jsonSchemaErrors, oasisJson, xsdErrors } from "@bizdata/test-kit/csdl-validators";
import { EDGE_FEATURE, edgeModel } from "@bizdata/test-kit/metadata-models";
import { describe, expect, it } from "vitest";
import { buildEdm } from "./build-edm.js";
import { renderCsdlJson } from "./csdl-json.js";
import { renderCsdlXml } from "./csdl-xml.js";

const cases = [
  ["the sample model, no feature", sampleModel, [], "4.0"],
  ["the sample model, every feature", sampleModel, sampleFeatures, "4.0"],
  ["the sample model, 4.01", sampleModel, sampleFeatures, "4.01"],
  ["the edge model, no feature", edgeModel, [], "4.0"],
  ["the edge model, with its feature", edgeModel, [EDGE_FEATURE], "4.01"],
] as const;

describe.each(cases)("%s", (_, model, features, version) => {
  const edm = buildEdm(model, { features: new Set(features), version });
  const xml = renderCsdlXml(edm);
  const json = renderCsdlJson(edm);

  it("validates against the OASIS EDMX and EDM XML schemas", async () => {
    expect(await xsdErrors(xml)).toEqual([]);
  });

  it("validates against the OASIS CSDL JSON schema", () => {
    expect(jsonSchemaErrors(json)).toEqual([]);
  });

  it("is, as JSON, what the OASIS converter makes of the XML", () => {
    const converted = oasisJson(xml);
    expect(converted.messages).toEqual([]);
    expect(json).toEqual(converted.json);
  });
});

describe("the validators", () => {
  const xml = renderCsdlXml(buildEdm(sampleModel, { features: new Set() }));

  it("reject XML the EDM schema does not allow", async () => {
    const broken = xml.replace('<Property Name="SKU" Type="Edm.String"', '<Property Name="SKU" Kind="Edm.String"');
    expect(broken).not.toBe(xml);
    expect((await xsdErrors(broken)).join("\n")).toMatch(/Kind/);
  });

  it("reject JSON the CSDL JSON schema does not allow", () => {
    const json = renderCsdlJson(buildEdm(sampleModel, { features: new Set() })) as any;
    json.bizdata.Product.SKU.$MaxLength = "long";
    expect(jsonSchemaErrors(json).join("\n")).toMatch(/Product\/SKU\/\$MaxLength/);
  });

  it("report names that collide, which neither schema can see", () => {
    const broken = xml.replace('<EntityType Name="Country">', '<EntityType Name="Contact">');
    expect(oasisJson(broken).messages).toContainEqual(
      expect.stringMatching(/Type name collides with other schema child/),
    );
  });
});
