/**
 * The documents as served: the service document lists entity sets and the function imports of
 * static Read methods, and each document depends on a tenant's features only through the
 * features the model's methods name.
 */
import { sampleModel } from "@bizdata/examples";
import { EDGE_FEATURE, edgeModel } from "@bizdata/test-kit/metadata-models";
import { describe, expect, it } from "vitest";
import { metadataDocument, serviceDocumentText } from "./metadata-documents.js";

const service = (model: typeof sampleModel, features: string[]) =>
  JSON.parse(serviceDocumentText(model, { features: new Set(features), version: "4.0" }));

describe("serviceDocumentText()", () => {
  it("lists the entity sets and the function imports, relative to the service root", () => {
    expect(service(sampleModel, [])).toEqual({
      "@odata.context": "$metadata",
      value: [
        ...[
          "Country",
          "Contact",
          "Customer",
          "PriceLevel",
          "Product",
          "ProductUom",
          "SalesOrder",
          "SalesOrderDetail",
          "SalesInvoice",
          "SalesInvoiceDetail",
          "Journal",
          "SalesOrderImport",
        ].map((name) => ({ name, kind: "EntitySet", url: name })),
        { name: "GetOpenOrders", kind: "FunctionImport", url: "GetOpenOrders" },
      ],
    });
  });

  it("offers a tenant only the function imports its features make available; action imports never", () => {
    const imports = (features: string[]) =>
      service(edgeModel, features)
        .value.filter((e: { kind: string }) => e.kind === "FunctionImport")
        .map((e: { name: string }) => e.name);
    expect(imports([EDGE_FEATURE])).toEqual(["Catalog", "Gadget_Find", "Container_Find"]);
    expect(imports([])).toEqual(["Gadget_Find", "Container_Find"]);
  });
});

describe("metadataDocument()", () => {
  const xml = (features: string[], version: "4.0" | "4.01" = "4.0") =>
    metadataDocument(edgeModel, "xml", { features: new Set(features), version });

  it("differs by the features the model names, and by version", () => {
    expect(xml([EDGE_FEATURE])).not.toBe(xml([]));
    expect(xml([EDGE_FEATURE])).toContain('<Action Name="Tune"');
    expect(xml([])).not.toContain('<Action Name="Tune"');
    expect(xml([], "4.01")).toContain('Version="4.01"');
  });

  it("is the same for features no method names", () => {
    expect(xml(["Unrelated", EDGE_FEATURE])).toBe(xml([EDGE_FEATURE]));
    expect(xml(["Unrelated"])).toBe(xml([]));
  });

  it("serves JSON as JSON text", () => {
    const json = JSON.parse(metadataDocument(edgeModel, "json", { features: new Set(), version: "4.0" }));
    expect(json.$EntityContainer).toBe("acme.edge.EntityContainer");
  });
});

describe("Capabilities.ChangeTracking", () => {
  const container = (changeTracking: boolean) =>
    JSON.parse(metadataDocument(sampleModel, "json", { features: new Set(), version: "4.0", changeTracking })).bizdata
      .Container as Record<string, Record<string, unknown>>;

  it("says of every stored set, with a change log, what a tracked read may filter by and expand", () => {
    const tracked = container(true);
    expect(tracked.SalesOrder!["@Capabilities.ChangeTracking"]).toEqual({
      Supported: true,
      FilterableProperties: ["Guid", "Title", "DocNumber", "Description", "OrderDate", "TotalPrice", "Status"],
      // the owned collection, whose items' changes are the order's; references are tracked in their own sets
      ExpandableProperties: ["Details"],
    });
    // the properties computed on read are not filterable at all
    expect(tracked.Product!["@Capabilities.ChangeTracking"]).toMatchObject({ Supported: true });
    expect(
      (tracked.Product!["@Capabilities.ChangeTracking"] as { FilterableProperties: string[] }).FilterableProperties,
    ).not.toContain("RecordReadOnly");
    // a virtual entity's records are kept nowhere, so none of its changes are logged
    expect(tracked.SalesOrderImport!["@Capabilities.ChangeTracking"]).toBeUndefined();
  });

  it("is not said without a change log, and the two documents are kept apart", () => {
    const untracked = container(false);
    const sets = Object.values(untracked).filter((member) => typeof member === "object");
    expect(sets.length).toBeGreaterThan(5);
    expect(sets.some((set) => "@Capabilities.ChangeTracking" in set)).toBe(false);
    expect(container(true).Customer!["@Capabilities.ChangeTracking"]).toBeDefined();
  });
});
