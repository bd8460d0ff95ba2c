/**
 * What `$metadata` says about the sample model, element by element, read from its CSDL JSON form
 * (csdl-schemas.test.ts shows the XML says the same): types and facets, keys, navigation and
 * owned collections, annotations, functions and actions with their parameters, the entity container.
 * Each expectation is the whole element, so anything extra shows as a failure.
 */
import { defineModel, entity, method, text } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import { EDGE_FEATURE, edgeModel } from "@bizdata/test-kit/metadata-models";
import { describe, expect, it } from "vitest";
import { buildEdm } from "./build-edm.js";
import { renderCsdlJson } from "./csdl-json.js";
import { renderCsdlXml } from "./csdl-xml.js";

const csdl = (model = sampleModel, features: readonly string[] = []) =>
  renderCsdlJson(buildEdm(model, { features: new Set(features) })) as Record<string, any>;

/** the element at `path` (`/`-separated, under the schema), e.g. `Product/SKU` */
const at = (doc: Record<string, any>, namespace: string, path: string) =>
  path.split("/").reduce((node, step) => node?.[step], doc[namespace]);

const RECORD_READ_ONLY = {
  $Collection: true,
  "@Core.Computed": true,
  "@Core.Description": "The names of the methods currently disabled for this record.",
};
const decimal = (precision: number, scale: number, more: object = {}) => ({
  $Type: "Edm.Decimal",
  $Nullable: true,
  $Precision: precision,
  $Scale: scale,
  ...more,
});
/** a list column or form field (UI.DataField, its type named as the OASIS converter writes it in 4.0) */
const dataField = (path: string) => ({
  "@odata.type": "https://sap.github.io/odata-vocabularies/vocabularies/UI.xml#UI.DataField",
  Value: { $Path: path },
});
const COMMON = "https://sap.github.io/odata-vocabularies/vocabularies/Common.xml";
/** a reference's value help: the target's natural key through the navigation property, and what is shown beside it */
const valueList = (navigation: string, set: string, key: string, shown: string[], searchable: boolean) => ({
  CollectionPath: set,
  SearchSupported: searchable,
  Parameters: [
    {
      "@odata.type": `${COMMON}#Common.ValueListParameterInOut`,
      LocalDataProperty: `${navigation}/${key}`,
      ValueListProperty: key,
    },
    ...shown.map((name) => ({
      "@odata.type": `${COMMON}#Common.ValueListParameterDisplayOnly`,
      ValueListProperty: name,
    })),
  ],
});
const alternateKey = (name: string) => [{ Key: [{ Name: name, Alias: name }] }];
// every entity set: ETags (the empty list: the version is no property) and what cannot be filtered
const restrictions = (...paths: string[]) => ({
  "@Core.OptimisticConcurrency": [],
  "@Capabilities.FilterRestrictions": { NonFilterableProperties: [...paths, "RecordReadOnly"] },
  "@Capabilities.SortRestrictions": { NonSortableProperties: [...paths, "RecordReadOnly"] },
});
/** an entity with no searchable property refuses $search */
const notSearchable = { "@Capabilities.SearchRestrictions": { Searchable: false } };
describe("$metadata of the sample model", () => {
  const doc = csdl();

  it.each<[string, unknown]>([
    // every entity: key Guid, immutable (given on create or assigned), Title, RecordReadOnly
    ["Product/$Kind", "EntityType"],
    ["Product/$Key", ["Guid"]],
    ["Product/Guid", { $Type: "Edm.Guid", "@Core.Immutable": true }],
    ["Product/Title", { $Nullable: true, $MaxLength: 400 }],
    ["Product/RecordReadOnly", RECORD_READ_ONLY],
    // facets from the field definitions
    ["Product/SKU", { $MaxLength: 64, "@Common.Label": "SKU" }],
    ["Product/SalesDescription", { $Nullable: true, $MaxLength: 255, "@Common.Label": "Description" }],
    ["Product/Cost", decimal(18, 4, { "@Common.Label": "Cost" })],
    ["PriceLevel/DiscountPercent", decimal(5, 2)],
    ["ProductUom/Factor", decimal(18, 4, { $DefaultValue: 1 })],
    ["SalesOrderDetail/LineNumber", { $Type: "Edm.Int32", $Nullable: true, "@Common.Label": "Line" }],
    ["SalesOrderDetail/Quantity", { $Type: "Edm.Decimal", $Precision: 18, $Scale: 4, "@Common.Label": "Quantity" }],
    ["SalesOrder/OrderDate", { $Type: "Edm.Date", $Nullable: true, "@Common.Label": "Order date" }],
    ["Country/Code", { $MaxLength: 2 }],
    // read-only properties the service computes
    ["SalesOrder/TotalPrice", decimal(18, 4, { "@Core.Computed": true, "@Common.Label": "Total" })],
    [
      "Journal/IsPosted",
      {
        $Type: "Edm.Boolean",
        $Nullable: true,
        $DefaultValue: false,
        "@Core.Computed": true,
        "@Common.Label": "Posted",
      },
    ],
    // closed value sets as enum types
    [
      "SalesOrder/Status",
      { $Type: "bizdata.SalesOrderStatus", $Nullable: true, $DefaultValue: "Open", "@Common.Label": "Status" },
    ],
    ["SalesOrderStatus", { $Kind: "EnumType", Open: 0, Released: 1, Closed: 2 }],
    // complex type, with a navigation property of its own
    ["Contact/MailingAddress", { $Type: "bizdata.MailingAddress", $Nullable: true }],
    [
      "MailingAddress",
      {
        $Kind: "ComplexType",
        Street: { $Nullable: true, $MaxLength: 255 },
        City: { $Nullable: true, $MaxLength: 100 },
        State: { $Nullable: true, $MaxLength: 32 },
        PostalCode: { $Nullable: true, $MaxLength: 16 },
        Country: { $Kind: "NavigationProperty", $Type: "bizdata.Country", $Nullable: true },
      },
    ],
    // virtual properties: computed on read
    ["Contact/FullName", { $Nullable: true, $MaxLength: 255, "@Core.Computed": true }],
    // references, and owned collections partnered with their inverse, whose items go with their owner
    [
      "Customer/PrimaryContact",
      { $Kind: "NavigationProperty", $Type: "bizdata.Contact", $Nullable: true, "@Common.Label": "Primary contact" },
    ],
    [
      "SalesOrder/SellToCustomer",
      {
        $Kind: "NavigationProperty",
        $Type: "bizdata.Customer",
        $Nullable: true,
        "@Common.Label": "Customer",
        "@Common.ValueList": valueList("SellToCustomer", "Customer", "Id", ["Name"], true),
      },
    ],
    [
      "SalesOrder/Details",
      {
        $Kind: "NavigationProperty",
        $Type: "bizdata.SalesOrderDetail",
        $Collection: true,
        $Partner: "SalesOrder",
        $OnDelete: "Cascade",
        "@Common.Label": "Lines",
      },
    ],
    [
      "SalesOrderDetail/SalesOrder",
      { $Kind: "NavigationProperty", $Type: "bizdata.SalesOrder", $Partner: "Details", "@Common.Label": "Sales order" },
    ],
    [
      "SalesOrderDetail/Product",
      {
        $Kind: "NavigationProperty",
        $Type: "bizdata.Product",
        "@Common.Label": "Product",
        "@Common.ValueList": valueList("Product", "Product", "SKU", ["SalesDescription", "Price"], true),
      },
    ],
    // how a generic client presents an entity: names, list columns, form groups (SAP's UI vocabulary)
    ["Product/@Common.Label", "Product"],
    ["Product/@UI.HeaderInfo", { TypeName: "Product", TypeNamePlural: "Products", Title: dataField("Title") }],
    ["Product/@UI.LineItem", ["SKU", "SalesDescription", "Price", "Cost"].map(dataField)],
    ["Product/@UI.FieldGroup#Pricing", { Label: "Pricing", Data: [dataField("Price"), dataField("Cost")] }],
    [
      "SalesOrder/@UI.LineItem",
      ["DocNumber", "Description", "SellToCustomer/Name", "Status", "OrderDate", "TotalPrice"].map(dataField),
    ],
    // an entity that declares nothing of it has none
    ["Country/@UI.LineItem", undefined],
    ["Country/@Common.Label", undefined],
    ["ProductUom/Product", { $Kind: "NavigationProperty", $Type: "bizdata.Product", $Partner: "Uoms" }],
    // the natural key, where it is unique and not the Guid
    ["Product/@Core.AlternateKeys", alternateKey("SKU")],
    ["Customer/@Core.AlternateKeys", alternateKey("Id")],
    ["ProductUom/@Core.AlternateKeys", undefined],
    ["SalesOrderDetail/@Core.AlternateKeys", undefined],
    // the virtual entity is an entity type like any other
    ["SalesOrderImport/Lines", { $MaxLength: 4000 }],
  ])("%s", (path, expected) => {
    expect(at(doc, "bizdata", path)).toEqual(expected);
  });

  it.each<[string, unknown]>([
    [
      "CalculateLineTotal",
      [
        {
          $Kind: "Function",
          $IsBound: true,
          $Parameter: [
            { $Name: "_it", $Type: "bizdata.SalesOrder" },
            { $Name: "taxRate", $Type: "Edm.Decimal", $Precision: 18, $Scale: 4 },
            { $Name: "quantity", $Type: "Edm.Int32" },
            {
              $Name: "discount",
              $Type: "Edm.Decimal",
              $Precision: 18,
              $Scale: 4,
              "@Core.OptionalParameter": { DefaultValue: "0" },
            },
          ],
          $ReturnType: { $Type: "Edm.Decimal", $Nullable: true, $Precision: 18, $Scale: 4 },
          "@Core.Description": "Total of a line at this order's average unit price, with tax and an optional discount",
        },
      ],
    ],
    [
      "ReorderFrom",
      [
        {
          $Kind: "Action",
          $IsBound: true,
          $Parameter: [
            { $Name: "_it", $Type: "bizdata.SalesOrder" },
            { $Name: "salesOrderGuid", $Type: "Edm.Guid" },
          ],
          "@Core.Description": "Copy the customer, description and lines of another sales order into this one",
        },
      ],
    ],
    [
      "GetOpenOrders",
      [
        {
          $Kind: "Function",
          $IsBound: true,
          $Parameter: [
            { $Name: "_it", $Type: "bizdata.SalesOrder", $Collection: true },
            { $Name: "customerId", $MaxLength: 255 },
          ],
          $ReturnType: { $Type: "bizdata.SalesOrder", $Collection: true },
          "@Core.Description": "The open sales orders of a customer",
        },
        {
          $Kind: "Function",
          $Parameter: [{ $Name: "customerId", $MaxLength: 255 }],
          $ReturnType: { $Type: "bizdata.SalesOrder", $Collection: true },
          "@Core.Description": "The open sales orders of a customer",
        },
      ],
    ],
    [
      "GetDefaultMarkup",
      [
        {
          $Kind: "Function",
          $IsBound: true,
          $Parameter: [{ $Name: "_it", $Type: "bizdata.Product" }],
          $ReturnType: { $Type: "Edm.Decimal", $Nullable: true, $Precision: 18, $Scale: 4 },
          "@Core.Description": "Markup of the list price over cost, in percent",
        },
      ],
    ],
    [
      "Post",
      [
        {
          $Kind: "Action",
          $IsBound: true,
          $Parameter: [{ $Name: "_it", $Type: "bizdata.Journal" }],
          "@Core.Description": "Post the journal; it cannot be changed afterwards",
        },
      ],
    ],
    [
      "UpdatePrices",
      [
        {
          $Kind: "Action",
          $IsBound: true,
          $Parameter: [
            { $Name: "_it", $Type: "bizdata.SalesInvoice" },
            { $Name: "roundToCents", $Type: "Edm.Boolean", "@Core.OptionalParameter": { DefaultValue: "false" } },
          ],
          "@Core.Description": "Reprice the invoice's lines from the current product prices",
        },
      ],
    ],
  ])("method %s", (name, expected) => {
    expect(at(doc, "bizdata", name)).toEqual(expected);
  });

  it.each<[string, unknown]>([
    [
      "Product",
      {
        $Collection: true,
        $Type: "bizdata.Product",
        $NavigationPropertyBinding: { Uoms: "ProductUom" },
        ...restrictions(),
      },
    ],
    [
      "SalesOrder",
      {
        $Collection: true,
        $Type: "bizdata.SalesOrder",
        $NavigationPropertyBinding: {
          SellToCustomer: "Customer",
          PriceLevel: "PriceLevel",
          Details: "SalesOrderDetail",
        },
        ...restrictions(),
        ...notSearchable,
      },
    ],
    [
      "Contact",
      {
        $Collection: true,
        $Type: "bizdata.Contact",
        $NavigationPropertyBinding: { "MailingAddress/Country": "Country" },
        ...restrictions("FullName"),
      },
    ],
    [
      "SalesOrderImport",
      {
        $Collection: true,
        $Type: "bizdata.SalesOrderImport",
        ...restrictions(),
        ...notSearchable,
        // a virtual entity keeps nothing: no record to read by key, update or delete
        "@Capabilities.ReadRestrictions": { ReadByKeyRestrictions: { Readable: false } },
        "@Capabilities.UpdateRestrictions": { Updatable: false },
        "@Capabilities.DeleteRestrictions": { Deletable: false },
      },
    ],
    // owned items have sets of their own, bound from the item back to its owner's set
    [
      "SalesOrderDetail",
      {
        $Collection: true,
        $Type: "bizdata.SalesOrderDetail",
        $NavigationPropertyBinding: { SalesOrder: "SalesOrder", Product: "Product" },
        ...restrictions(),
      },
    ],
    [
      "ProductUom",
      {
        $Collection: true,
        $Type: "bizdata.ProductUom",
        $NavigationPropertyBinding: { Product: "Product" },
        ...restrictions(),
        ...notSearchable,
      },
    ],
    [
      "GetOpenOrders",
      { $Function: "bizdata.GetOpenOrders", $EntitySet: "SalesOrder", $IncludeInServiceDocument: true },
    ],
  ])("container: %s", (name, expected) => {
    expect(at(doc, "bizdata", `Container/${name}`)).toEqual(expected);
  });

  it("names the container and the vocabularies it uses", () => {
    expect(doc.$Version).toBe("4.0");
    expect(doc.$EntityContainer).toBe("bizdata.Container");
    expect(doc.$Reference).toEqual({
      "https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.json": {
        $Include: [{ $Namespace: "Org.OData.Core.V1", $Alias: "Core" }],
      },
      "https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Capabilities.V1.json": {
        $Include: [{ $Namespace: "Org.OData.Capabilities.V1", $Alias: "Capabilities" }],
      },
      // the presentation terms' vocabularies, since the model uses them
      "https://sap.github.io/odata-vocabularies/vocabularies/Common.json": {
        $Include: [{ $Namespace: "com.sap.vocabularies.Common.v1", $Alias: "Common" }],
      },
      "https://sap.github.io/odata-vocabularies/vocabularies/UI.json": {
        $Include: [{ $Namespace: "com.sap.vocabularies.UI.v1", $Alias: "UI" }],
      },
    });
  });

  it("lists every entity in the container, owned items too", () => {
    const sets = Object.keys(doc.bizdata.Container).filter((k) => doc.bizdata.Container[k].$Collection);
    expect(sets).toEqual([
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
    ]);
  });

  it("writes Version 4.0 in XML unless asked for 4.01", () => {
    const xml = (version?: "4.0" | "4.01") =>
      renderCsdlXml(buildEdm(sampleModel, { features: new Set(), ...(version && { version }) }));
    expect(xml()).toContain('<edmx:Edmx Version="4.0"');
    expect(xml("4.01")).toContain('<edmx:Edmx Version="4.01"');
    expect(xml()).toContain(
      '<edmx:Reference Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.xml">',
    );
  });
});

describe("$metadata of the edge model", () => {
  const doc = csdl(edgeModel, [EDGE_FEATURE]);

  it.each<[string, unknown]>([
    ["Gadget/@Core.Description", 'A thing with <parts> & "quotes"'],
    ["Gadget/Code", { $MaxLength: 20, "@Core.Description": "The gadget's code" }],
    ["Gadget/Note", { $Nullable: true, $MaxLength: 255, $DefaultValue: 'says "hi" & <bye>' }],
    ["Gadget/Count", { $Type: "Edm.Int32", $Nullable: true, $DefaultValue: 3 }],
    ["Gadget/Active", { $Type: "Edm.Boolean", $Nullable: true, $DefaultValue: true }],
    ["Gadget/Since", { $Type: "Edm.Date", $Nullable: true, $DefaultValue: "2026-01-01" }],
    [
      "Part/Fitted",
      { $Type: "Edm.DateTimeOffset", $Nullable: true, $Precision: 6, $DefaultValue: "2026-01-01T00:00:00Z" },
    ],
    ["Part/FittedAt", { $Type: "Edm.TimeOfDay", $Nullable: true, $Precision: 6, $DefaultValue: "08:30:00" }],
    ["Part/Warranty", { $Type: "Edm.Duration", $Nullable: true, $Precision: 6, $DefaultValue: "P365D" }],
    // values that cannot be enum members keep the property a string
    ["Gadget/Phase", { $Nullable: true, $MaxLength: 11, $DefaultValue: "Done" }],
    // a model's alias is the schema's, and qualifies the names inside the document
    ["$Alias", "edge"],
    ["Gadget/Size", { $Type: "edge.GadgetSize" }],
    [
      "Gadget/Label",
      { $Type: "edge.GadgetLabel", $Nullable: true, "@Core.Computed": true, "@Core.Description": "Big or small" },
    ],
    // "Address" is an entity, so the complex field's type is named for its owner; one type per definition
    ["Gadget/Address", { $Type: "edge.GadgetAddress", $Nullable: true }],
    ["Gadget/Shipping", { $Type: "edge.GadgetAddress", $Nullable: true }],
    ["Kind/Grade", { $Type: "edge.KindGrade", $Nullable: true }],
    ["GadgetTuneLevel", { $Kind: "EnumType", Low: 0, High: 1 }],
    ["GadgetModeResult", { $Kind: "EnumType", Idle: 0, Busy: 1 }],
    // the container avoids the entity named Container
    ["EntityContainer/$Kind", "EntityContainer"],
    // bindings through complex properties, and to owned items' sets
    [
      "EntityContainer/Gadget/$NavigationPropertyBinding",
      { "Address/Country": "Country", "Shipping/Country": "Country", "Kind/Detail": "Line", Lines: "Line" },
    ],
    ["EntityContainer/Line/$NavigationPropertyBinding", { Gadget: "Gadget", Parts: "Part" }],
    // two static methods named Find: the imports take their entity's name
    [
      "EntityContainer/Gadget_Find",
      { $Function: "edge.Gadget_Find", $EntitySet: "Gadget", $IncludeInServiceDocument: true },
    ],
    [
      "EntityContainer/Container_Find",
      { $Function: "edge.Container_Find", $EntitySet: "Part", $IncludeInServiceDocument: true },
    ],
    ["EntityContainer/Make", { $Action: "edge.Make", $EntitySet: "Gadget" }],
    ["Find/0/$Parameter/0", { $Name: "_it", $Type: "edge.Gadget", $Collection: true }],
    ["Find/1/$Parameter/0", { $Name: "_it", $Type: "edge.Container", $Collection: true }],
    // a Read method that returns nothing answers 204, i.e. a null string
    ["Ping/0/$ReturnType", { $Nullable: true }],
    // the binding parameter steps aside for a parameter named _it; an optional one without default is nullable
    [
      "Tune/0/$Parameter",
      [
        { $Name: "__it", $Type: "edge.Gadget" },
        { $Name: "level", $Type: "edge.GadgetTuneLevel", "@Core.Description": "How far to go" },
        {
          $Name: "_it",
          $Nullable: true,
          $MaxLength: 255,
          "@Core.Description": "A parameter named like the binding parameter",
          "@Core.OptionalParameter": {},
        },
      ],
    ],
  ])("%s", (path, expected) => {
    expect(at(doc, "acme.edge", path)).toEqual(expected);
  });

  it("leaves out, for a tenant without the feature, the methods that would answer 403", () => {
    const without = csdl(edgeModel, []);
    for (const name of ["Tune", "Catalog"]) {
      expect(at(doc, "acme.edge", name)).toBeDefined();
      expect(at(without, "acme.edge", name)).toBeUndefined();
    }
    expect(at(doc, "acme.edge", "EntityContainer/Catalog")).toBeDefined();
    expect(at(without, "acme.edge", "EntityContainer/Catalog")).toBeUndefined();
    // and the types only they use
    expect(at(without, "acme.edge", "GadgetTuneLevel")).toBeUndefined();
    // the rest stays as it is
    expect(at(without, "acme.edge", "Ping")).toEqual(at(doc, "acme.edge", "Ping"));
  });
});

describe("a model $metadata cannot describe", () => {
  const read = method({ description: "Reads", type: "read", returns: { kind: "scalar", type: text() } });
  const modify = method({ description: "Modifies", type: "modify" });

  it.each([
    [
      "a method named like an entity",
      () => defineModel([entity("Order", { naturalKey: "Guid", fields: {}, methods: { Order: modify } })]),
      /action Order and entity type Order would both be named "Order"/,
    ],
    [
      "a Read and a Modify method of one name",
      () =>
        defineModel([
          entity("A", { naturalKey: "Guid", fields: {}, methods: { Check: read } }),
          entity("B", { naturalKey: "Guid", fields: {}, methods: { Check: modify } }),
        ]),
      /action Check and function Check would both be named "Check"/,
    ],
  ])("fails for %s, naming both", (_, model, message) => {
    expect(() => buildEdm(model(), { features: new Set() })).toThrow(message);
  });
});
