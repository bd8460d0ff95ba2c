// model.js: a model of your own: two entities, one referring to the other by natural key
import { decimal, defineModel, entity, reference, text } from "@bizdata/core";

export const Supplier = entity("Supplier", {
  naturalKey: "Code",
  fields: { Code: text({ required: true, maxLength: 16 }), Name: text({ maxLength: 100 }) },
  title: (s) => s.Name ?? s.Code,
});

export const Part = entity("Part", {
  naturalKey: "PartNo",
  fields: {
    PartNo: text({ required: true, maxLength: 32 }),
    Supplier: reference("Supplier"),
    Price: decimal({ precision: 18, scale: 2, min: 0 }),
  },
  title: (p) => p.PartNo,
});

export const model = defineModel([Supplier, Part]);
