/**
 * The OASIS artefacts that judge our `$metadata`, taken from the OASIS TC's own npm package
 * `odata-csdl` (oasis-tcs/odata-csdl-schemas, OASIS licence in its LICENSE.md): the EDMX and EDM
 * XML schemas (xmllint, compiled to WebAssembly, validates against them), the CSDL JSON schema
 * (ajv), and the reference XML-to-JSON converter, whose strict mode also reports what the
 * schemas cannot express (unknown types, broken partners and bindings).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Ajv } from "ajv";
import { validateXML } from "xmllint-wasm";

const require = createRequire(import.meta.url);
const schemas = join(dirname(require.resolve("odata-csdl/package.json")), "schemas");
const read = (file: string) => readFileSync(join(schemas, file), "utf8");

/** the messages xmllint gives for `xml` against edmx.xsd (and the edm.xsd it imports); empty when valid */
export async function xsdErrors(xml: string): Promise<string[]> {
  const result = await validateXML({
    xml: [{ fileName: "metadata.xml", contents: xml }],
    schema: [{ fileName: "edmx.xsd", contents: read("edmx.xsd") }],
    preload: [{ fileName: "edm.xsd", contents: read("edm.xsd") }],
  });
  return result.errors.map((e) => e.rawMessage);
}

// the schema's name patterns use \p{L}: unicode regular expressions (ajv's default) are needed
const validateJson = new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(read("csdl.schema.json")));

/** what the CSDL JSON schema finds wrong with `json`; empty when valid */
export function jsonSchemaErrors(json: unknown): string[] {
  return validateJson(json) ? [] : (validateJson.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

const { xml2json } = require("odata-csdl") as {
  xml2json: (xml: string, options: { strict: boolean; messages: unknown[] }) => unknown;
};

/** the OASIS converter's JSON for `xml`, and what it reported (strict mode stops at an error) */
export function oasisJson(xml: string): { json: unknown; messages: unknown[] } {
  const messages: unknown[] = [];
  try {
    return { json: xml2json(xml, { strict: true, messages }), messages };
  } catch (err) {
    return { json: undefined, messages: [...messages, (err as Error).message] };
  }
}
