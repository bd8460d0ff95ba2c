/**
 * SAP's Fiori tools read the reference host's `$metadata` as their users' tools do: the EDMX
 * parser (`@sap-ux/edmx-parser`) and the annotation converter (`@sap-ux/annotation-converter`)
 * that resolves it into the model Fiori elements apps are built from. Both take it without a
 * diagnostic, and see every addressable entity (the service document's sets, owned items'
 * among them) with its properties and the navigation bindings between sets; the CSDL JSON form
 * of the same `$metadata` validates against the OASIS CSDL JSON schema.
 */
import { jsonSchemaErrors } from "@bizdata/test-kit/csdl-validators";
import { convert } from "@sap-ux/annotation-converter";
import { merge, parse } from "@sap-ux/edmx-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReferenceService, startReferenceService } from "./reference-service.js";

let service: ReferenceService;
/** the entity sets of the service document */
let sets: string[];
let converted: ReturnType<typeof convert>;

beforeAll(async () => {
  service = await startReferenceService("fiori");
  sets = (await service.getJson("")).value
    .filter((r: { kind: string }) => r.kind === "EntitySet")
    .map((r: { name: string }) => r.name);
  converted = convert(merge(parse(await service.metadataXml())));
}, 60_000);

afterAll(async () => {
  await service?.close();
});

describe("SAP's Fiori EDMX parser and annotation converter", () => {
  it("take $metadata without a diagnostic", () => {
    expect(converted.diagnostics).toEqual([]);
  });

  it("see an entity set for every one of the service document, owned items' among them", () => {
    expect(converted.entitySets.map((s) => s.name).sort()).toEqual([...sets].sort());
    expect(sets).toEqual(expect.arrayContaining(["ProductUom", "SalesOrderDetail", "SalesInvoiceDetail"]));
    for (const set of converted.entitySets) expect(set.entityType?.name, set.name).toBe(set.name);
  });

  it("see a line's LineNumber and Quantity on the type of the SalesOrderDetail set, and its key", () => {
    const line = converted.entitySets.find((s) => s.name === "SalesOrderDetail")!.entityType;
    const property = (name: string) => line.entityProperties.find((p) => p.name === name);
    expect(property("LineNumber")?.type).toBe("Edm.Int32");
    expect(property("Quantity")).toMatchObject({ type: "Edm.Decimal", precision: 18, scale: 4 });
    expect(line.keys.map((k) => k.name)).toEqual(["Guid"]);
  });

  it("follow an owner's collection to its items' set, and an item back to its owner's", () => {
    const order = converted.entitySets.find((s) => s.name === "SalesOrder")!;
    const details = order.entityType.navigationProperties.find((n) => n.name === "Details")!;
    expect([details.isCollection, details.containsTarget, details.targetTypeName]).toEqual([
      true,
      false,
      "bizdata.SalesOrderDetail",
    ]);
    expect(order.navigationPropertyBinding.Details?.name).toBe("SalesOrderDetail");
    const line = converted.entitySets.find((s) => s.name === "SalesOrderDetail")!;
    expect(line.navigationPropertyBinding.SalesOrder?.name).toBe("SalesOrder");
    expect(line.navigationPropertyBinding.Product?.name).toBe("Product");
  });
});

describe("the OASIS CSDL JSON schema", () => {
  it("accepts $metadata as JSON, with a set for every entity of the service document", async () => {
    const json = await service.getJson("$metadata?$format=json");
    expect(jsonSchemaErrors(json)).toEqual([]);
    const container = json.bizdata.Container;
    for (const name of sets) expect(container[name]?.$Type, name).toBe(`bizdata.${name}`);
  });
});
