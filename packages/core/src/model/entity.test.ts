import { describe, expect, expectTypeOf, it } from "vitest";
import { entity, type RecordOf } from "./entity.js";
import {
  boolean,
  collection,
  complex,
  date,
  datetime,
  decimal,
  enumeration,
  guid,
  integer,
  reference,
  text,
  virtual,
} from "./fields.js";
import { defineModel } from "./model.js";

const Line = entity("DslLine", {
  naturalKey: "Guid",
  fields: {
    Order: reference("DslOrder", { required: true }),
    Qty: decimal({ precision: 10, scale: 2, required: true }),
  },
});
const Order = entity("DslOrder", {
  naturalKey: "Number",
  fields: {
    Number: text({ required: true, maxLength: 20 }),
    Count: integer({ min: 0, max: 10, default: 1 }),
    Open: boolean(),
    Day: date(),
    At: datetime(),
    External: guid(),
    Status: enumeration(["Open", "Closed"], { default: "Open" }),
    Address: complex({ City: text(), Land: reference("DslLand") }),
    Lines: collection(Line, { inverse: "Order" }),
  },
  virtuals: {
    Label: virtual(text(), { dependsOn: ["Number", "Status"], compute: (o) => `${o.Number} (${o.Status})` }),
  },
  title: (o) => o.Number,
});
const Land = entity("DslLand", { naturalKey: "Code", fields: { Code: text({ required: true }) } });

describe("entity()", () => {
  it("adds Guid and Title to every entity and keeps the declaration as plain data", () => {
    expect(Object.keys(Order.fields).slice(0, 2)).toEqual(["Guid", "Title"]);
    expect(Order.fields.Guid).toMatchObject({ kind: "guid", readOnly: true });
    expect(Order.fields.Count).toMatchObject({ kind: "integer", min: 0, max: 10, default: 1, required: false });
    expect(Order.fields.Number).toMatchObject({ kind: "text", required: true, maxLength: 20 });
    expect(Order.fields.Status).toMatchObject({ kind: "enum", values: ["Open", "Closed"], default: "Open" });
    expect(Order.naturalKey).toEqual({ property: "Number", unique: true });
    expect(Order.fields.Lines).toMatchObject({ kind: "collection", target: Line, inverse: "Order" });
    expect(Order.virtuals.Label.dependsOn).toEqual(["Number", "Status"]);
  });

  it("infers the record type from the definition", () => {
    type R = RecordOf<typeof Order>;
    expectTypeOf<R["Number"]>().toEqualTypeOf<string>();
    expectTypeOf<R["Count"]>().toEqualTypeOf<number | null>();
    expectTypeOf<R["Status"]>().toEqualTypeOf<"Open" | "Closed" | null>();
    expectTypeOf<R["Address"]>().toEqualTypeOf<{ City: string | null; Land: string | null }>();
    expectTypeOf<R["Lines"][number]["Qty"]>().toEqualTypeOf<number>();
    expectTypeOf<R["Label"]>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<R["Guid"]>().toEqualTypeOf<string>();
    expect(Order.virtuals.Label.compute({ Number: "A", Status: "Open" })).toBe("A (Open)");
  });

  it.each([
    [
      "a reserved property name",
      () => entity("X1", { naturalKey: "Guid", fields: { Guid: text() } }),
      /built in or reserved/,
    ],
    [
      "RecordReadOnly as a field",
      () => entity("X2", { naturalKey: "Guid", fields: { RecordReadOnly: text() } }),
      /reserved/,
    ],
    [
      "a property that is no identifier",
      () => entity("X3", { naturalKey: "Guid", fields: { "a-b": text() } }),
      /identifiers/,
    ],
    [
      "an entity name that is no identifier",
      () => entity("X 4", { naturalKey: "Guid", fields: {} }),
      /not an identifier/,
    ],
    ["a natural key that is no field", () => entity("X5", { naturalKey: "Code" as never, fields: {} }), /not a field/],
    [
      "a reference as natural key",
      () => entity("X6", { naturalKey: "Ref", fields: { Ref: reference("X5") } }),
      /must be a scalar/,
    ],
    [
      "a virtual depending on an unknown field",
      () =>
        entity("X7", {
          naturalKey: "Guid",
          fields: { A: text() },
          virtuals: { V: virtual(text(), { dependsOn: ["B"], compute: () => "" }) },
        }),
      /depends on "B"/,
    ],
  ])("rejects %s", (_, make, message) => {
    expect(make).toThrow(message);
  });

  it("allows a non-unique natural key", () => {
    const Tag = entity("DslTag", { naturalKey: { property: "Name", unique: false }, fields: { Name: text() } });
    expect(Tag.naturalKey).toEqual({ property: "Name", unique: false });
  });
});

describe("defineModel()", () => {
  it("resolves entities by exact name and knows the owner of collection items", () => {
    const model = defineModel([Line, Order, Land]);
    expect(model.entity("DslOrder")).toBe(Order);
    expect(model.entity("dslorder")).toBeUndefined();
    expect(model.owner("DslLine")).toEqual({ entity: Order, collection: "Lines", inverse: "Order" });
    expect(model.owner("DslOrder")).toBeUndefined();
  });

  it("qualifies the model by a namespace, bizdata unless given", () => {
    expect(defineModel([Land]).namespace).toBe("bizdata");
    expect(defineModel([Land], { namespace: "acme.sales" }).namespace).toBe("acme.sales");
    expect(defineModel([Land], { namespace: "acme.sales", alias: "sales" }).alias).toBe("sales");
    expect(defineModel([Land]).alias).toBeUndefined();
  });

  it.each([
    [
      "a reference to an unregistered entity",
      () => defineModel([Line, Order]),
      /"DslLand", which is not part of the model/,
    ],
    ["the same entity twice", () => defineModel([Land, Land]), /registered twice/],
    ["a namespace that is no dotted identifier", () => defineModel([Land], { namespace: "acme..x" }), /dot-separated/],
    ["a namespace OData reserves", () => defineModel([Land], { namespace: "Edm" }), /reserved by OData/],
    ["a dotted alias", () => defineModel([Land], { namespace: "acme.sales", alias: "a.b" }), /simple identifier/],
    ["an alias that is the namespace", () => defineModel([Land], { namespace: "acme", alias: "acme" }), /other than/],
    ["an alias a vocabulary uses", () => defineModel([Land], { alias: "Core" }), /taken by OData or a vocabulary/],
    [
      "a collection whose inverse does not point back",
      () => {
        const Item = entity("DslItem", { naturalKey: "Guid", fields: { Owner: reference("DslLand") } });
        const Box = entity("DslBox", { naturalKey: "Guid", fields: { Items: collection(Item, { inverse: "Owner" }) } });
        return defineModel([Item, Box, Land]);
      },
      /inverse "Owner" must be a reference from DslItem to DslBox/,
    ],
  ])("rejects %s", (_, make, message) => {
    expect(make).toThrow(message);
  });
});
