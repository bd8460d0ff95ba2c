import { entity, type RecordOf, text } from "@bizdata/core";

/**
 * A virtual entity (spec 4.6 rule 6): an order written as one flat record, the way an import file
 * or a quick-entry form has it, with lines as `SKU:quantity` pairs. It has no table; saving it
 * creates a real SalesOrder (with its business logic) — at once on a plain request, at commit in
 * a workflow, where it is staged with the other changes until then.
 */
export const SalesOrderImport = entity("SalesOrderImport", {
  naturalKey: "DocNumber",
  fields: {
    DocNumber: text({ required: true, maxLength: 32 }),
    /** the customer's `Id` */
    Customer: text({ required: true, maxLength: 32 }),
    Description: text(),
    /** `SKU:quantity` pairs separated by commas, e.g. `SKU-000001:2,SKU-000002:1` */
    Lines: text({ required: true, maxLength: 4000 }),
  },
  hooks: {
    save: [
      {
        name: "LinesReadable",
        run({ record, reject }) {
          for (const pair of String(record.Lines).split(",")) {
            if (!/^[^:]+:\d+(\.\d+)?$/.test(pair.trim())) reject("Lines", `"${pair}" is not SKU:quantity.`);
          }
        },
      },
    ],
  },
  storage: {
    // all the orders at once (createAll): one lookup per entity and one insert per table for the lot
    async save(records, { createAll }) {
      await createAll(
        "SalesOrder",
        records.map((r) => ({
          DocNumber: r.DocNumber,
          SellToCustomer: r.Customer,
          Description: r.Description ?? null,
          Details: String(r.Lines)
            .split(",")
            .map((pair) => {
              const [sku, quantity] = pair.trim().split(":") as [string, string];
              return { Product: sku, Quantity: Number(quantity) };
            }),
        })),
      );
    },
  },
});
export type SalesOrderImportRecord = RecordOf<typeof SalesOrderImport>;
