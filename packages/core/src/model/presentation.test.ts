import { describe, expect, it } from "vitest";
import { entity } from "./entity.js";
import { collection, complex, decimal, reference, text } from "./fields.js";
import { defineModel } from "./model.js";

const Supplier = entity("Supplier", {
  naturalKey: "Code",
  fields: { Code: text({ required: true }), Name: text(), Address: complex({ City: text() }) },
});
const Line = entity("Line", { naturalKey: "Guid", fields: { Part: reference("Part", { required: true }) } });

/** a Part entity with the given presentation, in a model with its supplier and lines */
const partWith = (presentation: Record<string, unknown>, supplier: Record<string, unknown> = {}) =>
  defineModel([
    Supplier,
    Line,
    entity("Part", {
      naturalKey: "PartNo",
      fields: {
        PartNo: text({ required: true, label: "Part number" }),
        Price: decimal({ label: "Price" }),
        Supplier: reference("Supplier", supplier),
        Lines: collection(Line, { inverse: "Part" }),
      },
      ...presentation,
    }),
  ]);

describe("presentation", () => {
  it("keeps labels, columns and field groups on the definition", () => {
    const model = partWith(
      {
        label: "Part",
        pluralLabel: "Parts",
        lineItem: ["PartNo", "Supplier/Name", "Title"],
        fieldGroups: { Main: { label: "Main", fields: ["PartNo", "Price"] } },
      },
      { valueHelp: ["Name", "Title"] },
    );
    const part = model.entity("Part")!;
    expect(part).toMatchObject({
      label: "Part",
      pluralLabel: "Parts",
      lineItem: ["PartNo", "Supplier/Name", "Title"],
      fieldGroups: { Main: { label: "Main", fields: ["PartNo", "Price"] } },
    });
    expect(part.fields.PartNo.label).toBe("Part number");
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>, RegExp]>([
    ["an unknown column", { lineItem: ["Nope"] }, {}, /Part lineItem: "Nope": "Nope" is no property of Part/],
    ["a collection as a column", { lineItem: ["Lines"] }, {}, /a collection cannot be a column/],
    [
      "an unknown property behind a reference",
      { lineItem: ["Supplier/Nope"] },
      {},
      /"Nope" is no property of Supplier/,
    ],
    ["a path through a scalar", { lineItem: ["Price/Nope"] }, {}, /neither a reference nor a complex property/],
    ["a path of three steps", { lineItem: ["Supplier/Address/City"] }, {}, /at most two steps/],
    [
      "a group with a bad qualifier",
      { fieldGroups: { "a b": { fields: ["PartNo"] } } },
      {},
      /"a b" is not an identifier/,
    ],
    ["an empty group", { fieldGroups: { Main: { fields: [] } } }, {}, /name at least one field/],
    ["an unknown field in a group", { fieldGroups: { Main: { fields: ["Nope"] } } }, {}, /fieldGroups.Main: "Nope"/],
    [
      "a value help of a complex property",
      {},
      { valueHelp: ["Address"] },
      /Part.Supplier valueHelp: "Address" is no scalar/,
    ],
  ])("refuses %s, naming it", (_, presentation, supplier, message) => {
    expect(() => partWith(presentation, supplier)).toThrow(message);
  });
});
