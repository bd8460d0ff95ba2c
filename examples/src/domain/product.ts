import { collection, decimal, duration, entity, method, type RecordOf, reference, text } from "@bizdata/core";

/**
 * A unit of measure a product is sold in (`Each`, `Box`), with how many base units it holds.
 * Names repeat across products, so the natural key is not unique: a reference by name alone
 * resolves only when one unit carries it.
 */
export const ProductUom = entity("ProductUom", {
  naturalKey: { property: "Name", unique: false },
  fields: {
    Product: reference("Product", { required: true }),
    Name: text({ required: true, maxLength: 32 }),
    Factor: decimal({ precision: 18, scale: 4, min: 0, default: 1 }),
  },
  title: (u) => u.Name,
});
export type ProductUomRecord = RecordOf<typeof ProductUom>;

export const Product = entity("Product", {
  naturalKey: "SKU",
  label: "Product",
  pluralLabel: "Products",
  fields: {
    SKU: text({ required: true, maxLength: 64, searchable: true, label: "SKU" }),
    SalesDescription: text({ searchable: true, label: "Description" }),
    Cost: decimal({ precision: 18, scale: 4, min: 0, label: "Cost" }),
    Price: decimal({ precision: 18, scale: 4, min: 0, label: "List price" }),
    /** how long a restock takes, e.g. P14D */
    LeadTime: duration({ label: "Lead time" }),
    Uoms: collection(ProductUom, { inverse: "Product", label: "Units of measure" }),
  },
  lineItem: ["SKU", "SalesDescription", "Price", "Cost"],
  fieldGroups: {
    General: { label: "General", fields: ["SKU", "SalesDescription", "LeadTime"] },
    Pricing: { label: "Pricing", fields: ["Price", "Cost"] },
  },
  title: (p) => p.SalesDescription ?? p.SKU,
  // implemented in sample-methods.ts
  methods: {
    GetDefaultMarkup: method({
      description: "Markup of the list price over cost, in percent",
      type: "read",
      returns: { kind: "scalar", type: decimal() },
    }),
  },
  hooks: {
    logic: [
      {
        name: "CostChangeNotice",
        feature: "CostChangeNotice",
        on: ["Cost"],
        run({ record, previous, prompts }) {
          if (previous === null || previous.Cost === record.Cost) return;
          prompts.message({
            text: `The cost of ${record.SKU} changed from ${previous.Cost ?? "none"} to ${record.Cost ?? "none"}.`,
            severity: "warning",
            entityGuid: record.Guid,
            property: "Cost",
          });
        },
      },
    ],
  },
});
export type ProductRecord = RecordOf<typeof Product>;
