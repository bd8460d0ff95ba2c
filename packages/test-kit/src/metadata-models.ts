/**
 * A model made to reach the corners of `$metadata` generation that the sample domain does not:
 * names that collide (an entity called `Container`, a complex field named like an entity, two
 * static methods of one name), values an enum type cannot carry, nested containment, every scalar
 * kind with defaults and text that needs escaping, methods behind a feature, a Read method that
 * returns nothing, and a parameter named like the binding parameter.
 */
import {
  boolean,
  collection,
  complex,
  date,
  datetime,
  decimal,
  defineModel,
  duration,
  entity,
  enumeration,
  guid,
  integer,
  method,
  reference,
  text,
  timeOfDay,
  virtual,
} from "@bizdata/core";

/** the feature that hides `Tune` and `Catalog` from tenants without it */
export const EDGE_FEATURE = "Tuning";

const Tune = method({
  description: "Tunes the gadget",
  type: "modify",
  params: {
    level: enumeration(["Low", "High"], { required: true, description: "How far to go" }),
    _it: text({ description: "A parameter named like the binding parameter" }),
  },
});
const Catalog = method({
  description: "The gadgets of a catalog",
  type: "read",
  isStatic: true,
  params: { since: datetime() },
  returns: { kind: "collection", entity: "Gadget" },
});
const Ping = method({ description: "Answers nothing", type: "read" });
const Mode = method({
  description: "The current mode",
  type: "read",
  returns: { kind: "scalar", type: enumeration(["Idle", "Busy"]) },
});
const FindGadget = method({
  description: "Finds a gadget",
  type: "read",
  isStatic: true,
  params: { code: text({ required: true, maxLength: 20 }) },
  returns: { kind: "entity", entity: "Gadget" },
});
const FindPart = method({
  description: "Finds a part",
  type: "read",
  isStatic: true,
  params: { code: text({ required: true }) },
  returns: { kind: "entity", entity: "Part" },
});
const Make = method({
  description: "Makes a gadget",
  type: "modify",
  isStatic: true,
  params: { code: text({ required: true }) },
  returns: { kind: "entity", entity: "Gadget" },
});

const place = complex({ Line: text({ maxLength: 80 }), Country: reference("Country") });

export const Part = entity("Part", {
  naturalKey: "Guid",
  fields: {
    Line: reference("Line", { required: true }),
    Serial: guid(),
    Fitted: datetime({ default: "2026-01-01T00:00:00Z" }),
    FittedAt: timeOfDay({ default: "08:30:00" }),
    Warranty: duration({ default: "P365D" }),
  },
});
export const Line = entity("Line", {
  naturalKey: "Guid",
  fields: {
    Gadget: reference("Gadget", { required: true }),
    Parts: collection(Part, { inverse: "Line" }),
  },
});
export const Gadget = entity("Gadget", {
  description: 'A thing with <parts> & "quotes"',
  naturalKey: { property: "Code", unique: true },
  fields: {
    Code: text({ required: true, maxLength: 20, description: "The gadget's code" }),
    Note: text({ default: 'says "hi" & <bye>' }),
    Count: integer({ default: 3 }),
    Ratio: decimal({ precision: 9, scale: 3, default: 0.5 }),
    Active: boolean({ default: true }),
    Since: date({ default: "2026-01-01" }),
    Phase: enumeration(["In Progress", "Done"], { default: "Done" }),
    Size: enumeration(["S", "M", "L"], { required: true }),
    Address: place,
    Shipping: place,
    Kind: complex({ Grade: enumeration(["A", "B"]), Detail: reference("Line") }),
    Lines: collection(Line, { inverse: "Gadget" }),
  },
  virtuals: {
    Label: virtual(enumeration(["Big", "Small"]), {
      dependsOn: ["Count"],
      compute: (g) => (Number(g.Count) > 5 ? "Big" : "Small"),
      description: "Big or small",
    }),
  },
  methods: { Tune, Catalog, Ping, Mode, Find: FindGadget, Make },
});
export const Container = entity("Container", { naturalKey: "Guid", fields: {}, methods: { Find: FindPart } });
export const Address = entity("Address", { naturalKey: "Guid", fields: {} });
export const Country = entity("Country", { naturalKey: "Code", fields: { Code: text({ required: true }) } });

export const edgeModel = defineModel([Gadget, Line, Part, Container, Address, Country], {
  namespace: "acme.edge",
  alias: "edge",
});
edgeModel.subscribe(Tune, { name: "Tune", feature: EDGE_FEATURE, run: () => undefined });
edgeModel.subscribe(Catalog, { name: "Catalog", feature: EDGE_FEATURE, run: () => [] });
for (const m of [Ping, FindGadget, FindPart])
  edgeModel.subscribe(m as typeof Ping, { name: "Plain", run: () => undefined });
edgeModel.subscribe(Mode, { name: "Mode", run: () => "Idle" });
edgeModel.subscribe(Make, { name: "Make", run: () => null });
