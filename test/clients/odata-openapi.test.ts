/**
 * The OASIS converter `odata-openapi` (its `odata-openapi3` command, as its users run it) turns
 * the reference host's `$metadata` into an OpenAPI document without messages; the document is
 * valid OpenAPI, describes every entity set, and every GET path in it answers 2xx on the sample
 * data, with its keys and parameters filled from the seeded records.
 *
 * The paths are only known once the converter has run, and vitest names its tests when it loads
 * the file: the service starts and the converter runs while the file loads, so that each GET path
 * is a test of its own.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, describe, expect, it } from "vitest";
import { clientProject } from "./client-project.js";
import { startReferenceService } from "./reference-service.js";

const service = await startReferenceService("openapi");
const project = await clientProject("odata-openapi", await service.metadataXml());
const { host, pathname } = new URL(service.serviceUrl);
const converterOutput = await project.npx("odata-openapi3", [
  "--scheme",
  "http",
  "--host",
  host,
  "--basePath",
  pathname.replace(/\/$/, ""),
  "--target",
  "bizdata.openapi3.json",
  "bizdata.xml",
]);
const document = JSON.parse(await readFile(join(project.dir, "bizdata.openapi3.json"), "utf8"));

afterAll(async () => {
  await service.close();
  await project.remove();
});

interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly schema?: { readonly type?: string | readonly string[] };
}

/** the value the sample data gives each operation parameter (a parameter missing here fails its path's test by name) */
const [aCustomer] = (await service.getJson("Customer?$select=Id&$orderby=Id&$top=1")).value;
const parameterValues: Readonly<Record<string, string>> = {
  customerId: `'${aCustomer.Id}'`,
  taxRate: "0.2",
  quantity: "3",
  discount: "10",
};

/**
 * The address of a path of the document on the seeded data: `Set({Guid})/Nav({Guid_1})/…`
 * with the keys of a record that has what the rest of the path reaches (a collection item, a
 * reference that is set), and the operation parameters from `parameterValues`.
 */
async function addressOf(template: string, parameters: readonly Parameter[]): Promise<string> {
  const segments = template.replace(/^\//, "").split("/");
  const keyed = segments.filter((s) => /\(\{Guid(_\d+)?\}\)$/.test(s)).map((s) => s.slice(0, s.indexOf("(")));
  const keys: string[] = [];
  if (keyed.length > 0) {
    const [set, items] = keyed;
    if (keyed.length > 2) throw new Error(`${template}: more than two keyed segments`);
    // what follows the last key must exist on the chosen record: a navigation (through a complex property) that is set
    const rest = segments.slice(segments.findLastIndex((s) => s.includes("({Guid")) + 1);
    const reach = rest.filter((s) => !s.includes(".") && !s.startsWith("$")).join("/");
    // a collection at the end of the path answers a `value` array
    const answer = document.paths[template]?.get?.responses?.["200"]?.content?.["application/json"]?.schema;
    const isCollection = answer?.properties?.value?.type === "array";
    const exists = reach && (isCollection ? `${reach}/any()` : `${reach} ne null`);
    const options = items
      ? `$expand=${items}($select=Guid${exists ? `;$filter=${exists}` : ""})`
      : exists && `$filter=${exists}`;
    const found = (await service.getJson(`${set}?$select=Guid&${options}`)).value.find(
      (r: any) => !items || r[items].length > 0,
    );
    if (!found) throw new Error(`${template}: no seeded ${set} has ${items ?? reach}`);
    keys.push(found.Guid, ...(items ? [found[items][0].Guid] : []));
  }
  let address = template.replace(/\{Guid(?:_(\d+))?\}/g, (_, n) => keys[n === undefined ? 0 : Number(n)]!);
  const query: string[] = [];
  for (const p of parameters) {
    if (p.in === "path" && !p.name.startsWith("Guid")) {
      const value = parameterValues[p.name];
      if (value === undefined) throw new Error(`${template}: no sample value for path parameter ${p.name}`);
      address = address.replace(`{${p.name}}`, encodeURIComponent(value));
    }
    if (p.in === "query" && !p.name.startsWith("$") && p.required) {
      const value = parameterValues[p.name];
      if (value === undefined) throw new Error(`${template}: no sample value for query parameter ${p.name}`);
      query.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(value)}`);
    }
  }
  return address.replace(/^\//, "") + (query.length > 0 ? `?${query.join("&")}` : "");
}

describe("the OASIS OpenAPI converter", () => {
  it("converts $metadata without messages, into a valid OpenAPI document for the service's address", async () => {
    // the command prints the target's name, then its messages (unknown types, actions, …) if any
    expect(converterOutput.trim()).toBe("bizdata.openapi3.json");
    const result = await new Validator().validate(document);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.servers).toEqual([{ url: service.serviceUrl.replace(/\/$/, "") }]);
  });

  it("describes every entity set of the service document, as far as its Capabilities allow", async () => {
    const sets = (await service.getJson("")).value.filter((r: { kind: string }) => r.kind === "EntitySet");
    const csdl = await service.getJson("$metadata?$format=json");
    expect(sets.length).toBeGreaterThan(5);
    for (const { name, url } of sets) {
      expect(Object.keys(document.paths[`/${url}`] ?? {}), url).toEqual(expect.arrayContaining(["get", "post"]));
      // a virtual entity's set keeps no record: no address of one (vocabularies.ts, virtualSetRestrictions)
      const set = csdl.bizdata.Container[name];
      const keeps = set["@Capabilities.ReadRestrictions"]?.ReadByKeyRestrictions?.Readable !== false;
      const byKey = Object.keys(document.paths[`/${url}({Guid})`] ?? {});
      if (keeps) expect(byKey, url).toEqual(expect.arrayContaining(["get", "patch", "delete"]));
      else expect(byKey, url).toEqual([]);
    }
  });
});

const getPaths = Object.entries(document.paths as Record<string, any>).filter(([, item]) => item.get);

describe("every GET path of the document answers 2xx on the sample data", () => {
  it("has GET paths to try, owned items in their own sets and under their owners among them", () => {
    expect(getPaths.length).toBeGreaterThan(20);
    // an item's own set, its key, what it leads to, and its owner's collection
    expect(getPaths.map(([template]) => template)).toEqual(
      expect.arrayContaining([
        "/SalesOrderDetail",
        "/SalesOrderDetail({Guid})",
        "/SalesOrderDetail({Guid})/Product",
        "/SalesOrder({Guid})/Details",
        "/ProductUom({Guid})",
        "/Product({Guid})/Uoms",
        "/SalesInvoiceDetail({Guid})",
        "/SalesInvoice({Guid})/Details",
      ]),
    );
  });

  it.each(getPaths)("GET %s", async (template, item) => {
    const address = await addressOf(template, [...(item.parameters ?? []), ...(item.get.parameters ?? [])]);
    const server = `${document.servers[0].url}/`;
    const status = await service.explain(async () => {
      const res = await fetch(new URL(address, server), { headers: { Authorization: service.authorization } });
      await res.body?.cancel();
      if (res.status >= 300) throw new Error(`GET ${address} answered ${res.status}`);
      return res.status;
    });
    expect(status).toBeLessThan(300);
  });
});
