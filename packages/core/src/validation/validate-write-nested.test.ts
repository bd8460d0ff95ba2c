/**
 * validateWrite on references, complex values and owned collections (deep writes), including
 * collections nested inside collection items.
 */
import { describe, expect, it } from "vitest";
import { entity } from "../model/entity.js";
import { boolean, collection, complex, decimal, enumeration, integer, reference, text } from "../model/fields.js";
import { defineModel } from "../model/model.js";
import { validateWrite, type WriteMode } from "./index.js";

const Country = entity("Country", { naturalKey: "Code", fields: { Code: text({ required: true, maxLength: 2 }) } });
const Warehouse = entity("Warehouse", { naturalKey: "Number", fields: { Number: integer({ required: true }) } });
const Toggle = entity("Toggle", { naturalKey: "On", fields: { On: boolean({ required: true }) } });
const Customer = entity("Customer", {
  naturalKey: "Name",
  fields: {
    Name: text({ required: true }),
    Warehouse: reference("Warehouse"),
    Toggle: reference("Toggle"),
    MailingAddress: complex({
      Street: text({ maxLength: 40 }),
      Country: reference("Country"),
      Kind: enumeration(["Home", "Work"], { default: "Home" }),
    }),
  },
});
const Supplier = entity("Supplier", {
  naturalKey: "Guid",
  fields: { Contact: complex({ Email: text({ required: true }), Phone: text() }) },
});
const DetailNote = entity("DetailNote", {
  naturalKey: "Guid",
  fields: { Detail: reference("SalesOrderDetail", { required: true }), Text: text({ required: true, maxLength: 20 }) },
});
const SalesOrderDetail = entity("SalesOrderDetail", {
  naturalKey: "Guid",
  fields: {
    SalesOrder: reference("SalesOrder", { required: true }),
    Item: text({ required: true }),
    Quantity: integer({ required: true, min: 1 }),
    Price: decimal({ precision: 12, scale: 4 }),
    Notes: collection(DetailNote, { inverse: "Detail" }),
  },
});
const SalesOrder = entity("SalesOrder", {
  naturalKey: "Number",
  fields: {
    Number: text({ required: true }),
    Customer: reference("Customer", { required: true }),
    Details: collection(SalesOrderDetail, { inverse: "SalesOrder" }),
  },
});
const model = defineModel([Country, Warehouse, Toggle, Customer, Supplier, DetailNote, SalesOrderDetail, SalesOrder]);

const GUID = "0F8FAD5B-D9CB-469F-A165-70867728950E";
const guid = GUID.toLowerCase();
const home = { MailingAddress: { Kind: "Home" } };
const order = { Number: "SO-1", Customer: "ACME" };
const line = { Item: "A", Quantity: 2 };

type Entity = typeof Customer | typeof Supplier | typeof SalesOrder | typeof SalesOrderDetail;
type Issues = readonly (readonly [code: string, target: string])[];

// [name, entity, mode, body, normalized value]
const valid: [string, Entity, WriteMode, unknown, Record<string, unknown>][] = [
  // references
  ["reference by natural key", SalesOrder, "create", order, order],
  ["reference by GUID, lowercased", SalesOrder, "update", { Customer: GUID }, { Customer: guid }],
  ["reference by numeric natural key", Customer, "update", { Warehouse: 7 }, { Warehouse: 7 }],
  ["numeric natural key as string", Customer, "update", { Warehouse: "7" }, { Warehouse: "7" }],
  ["reference by boolean natural key", Customer, "update", { Toggle: true }, { Toggle: true }],
  ["optional reference null", Customer, "update", { Warehouse: null }, { Warehouse: null }],
  [
    "inverse given when writing the item itself",
    SalesOrderDetail,
    "create",
    { ...line, SalesOrder: "SO-1" },
    { ...line, SalesOrder: "SO-1" },
  ],
  // complex
  [
    "complex with member default",
    Customer,
    "create",
    { Name: "A", MailingAddress: { Country: "DE" } },
    { Name: "A", MailingAddress: { Country: "DE", Kind: "Home" } },
  ],
  ["absent complex gets member defaults", Customer, "create", { Name: "A" }, { Name: "A", ...home }],
  ["complex null", Customer, "create", { Name: "A", MailingAddress: null }, { Name: "A", MailingAddress: null }],
  [
    "complex merges on update",
    Customer,
    "update",
    { MailingAddress: { Street: "Main" } },
    { MailingAddress: { Street: "Main" } },
  ],
  [
    "complex with required member",
    Supplier,
    "create",
    { Contact: { Email: "a@b.c" } },
    { Contact: { Email: "a@b.c" } },
  ],
  [
    "required member left alone on update",
    Supplier,
    "update",
    { Contact: { Phone: "1" } },
    { Contact: { Phone: "1" } },
  ],
  // collections
  [
    "new line",
    SalesOrder,
    "create",
    { ...order, Details: [{ ...line, Price: 9.99 }] },
    { ...order, Details: [{ ...line, Price: "9.99" }] },
  ],
  [
    "line with Guid is partial",
    SalesOrder,
    "update",
    { Details: [{ Guid: GUID, Quantity: 3 }] },
    { Details: [{ Guid: guid, Quantity: 3 }] },
  ],
  [
    "new line with client-chosen Guid",
    SalesOrder,
    "update",
    { Details: [{ Guid: guid, ...line }] },
    { Details: [{ Guid: guid, ...line }] },
  ],
  ["null collection on create is empty", SalesOrder, "create", { ...order, Details: null }, { ...order, Details: [] }],
  ["null collection on update removes all", SalesOrder, "update", { Details: null }, { Details: null }],
  ["empty collection", SalesOrder, "update", { Details: [] }, { Details: [] }],
  [
    "nested collection",
    SalesOrder,
    "update",
    { Details: [{ ...line, Notes: [{ Text: "hi" }] }] },
    { Details: [{ ...line, Notes: [{ Text: "hi" }] }] },
  ],
];

// [name, entity, mode, body, [code, target] of every issue in order]
const invalid: [string, Entity, WriteMode, unknown, Issues][] = [
  // references
  ["missing required reference", SalesOrder, "create", { Number: "1" }, [["Required", "Customer"]]],
  ["required reference null", SalesOrder, "update", { Customer: null }, [["Required", "Customer"]]],
  ["empty reference", SalesOrder, "update", { Customer: "" }, [["InvalidType", "Customer"]]],
  ["number for a text natural key", SalesOrder, "update", { Customer: 42 }, [["InvalidType", "Customer"]]],
  ["fraction for an integer natural key", Customer, "update", { Warehouse: 7.5 }, [["InvalidType", "Warehouse"]]],
  ["boolean for an integer natural key", Customer, "update", { Warehouse: true }, [["InvalidType", "Warehouse"]]],
  ["number for a boolean natural key", Customer, "update", { Toggle: 1 }, [["InvalidType", "Toggle"]]],
  ["object as reference", SalesOrder, "update", { Customer: { Guid: guid } }, [["InvalidType", "Customer"]]],
  // complex
  [
    "complex member type",
    Customer,
    "update",
    { MailingAddress: { Country: 5 } },
    [["InvalidType", "MailingAddress.Country"]],
  ],
  [
    "complex member bound",
    Customer,
    "update",
    { MailingAddress: { Street: "x".repeat(41) } },
    [["TooLong", "MailingAddress.Street"]],
  ],
  [
    "complex unknown member",
    Customer,
    "update",
    { MailingAddress: { Zip: "1", country: "DE" } },
    [
      ["UnknownProperty", "MailingAddress.Zip"],
      ["UnknownProperty", "MailingAddress.country"],
    ],
  ],
  ["complex not an object", Customer, "update", { MailingAddress: "Main St" }, [["InvalidType", "MailingAddress"]]],
  ["complex as array", Customer, "update", { MailingAddress: [] }, [["InvalidType", "MailingAddress"]]],
  ["complex required member missing", Supplier, "create", { Contact: { Phone: "1" } }, [["Required", "Contact.Email"]]],
  ["absent complex with required member", Supplier, "create", {}, [["Required", "Contact.Email"]]],
  ["complex with required member null", Supplier, "update", { Contact: null }, [["Required", "Contact"]]],
  // collections
  ["collection not an array", SalesOrder, "update", { Details: { Item: "A" } }, [["InvalidType", "Details"]]],
  ["item not an object", SalesOrder, "update", { Details: [line, 1] }, [["InvalidType", "Details[1]"]]],
  [
    "new line checked as create",
    SalesOrder,
    "update",
    { Details: [{ Quantity: 0 }] },
    [
      ["OutOfRange", "Details[0].Quantity"],
      ["Required", "Details[0].Item"],
    ],
  ],
  [
    "inverse in an item",
    SalesOrder,
    "update",
    { Details: [{ ...line, SalesOrder: "SO-1" }] },
    [["ReadOnlyProperty", "Details[0].SalesOrder"]],
  ],
  [
    "line Guid malformed",
    SalesOrder,
    "update",
    { Details: [{ Guid: "1", Quantity: 3 }] },
    [["InvalidType", "Details[0].Guid"]],
  ],
  [
    "line with Guid still typed",
    SalesOrder,
    "update",
    { Details: [{ Guid: guid, Quantity: "3" }] },
    [["InvalidType", "Details[0].Quantity"]],
  ],
  ["line Guid null", SalesOrder, "update", { Details: [{ Guid: null }] }, [["Required", "Details[0].Guid"]]],
  [
    "unknown and computed in an item",
    SalesOrder,
    "update",
    { Details: [{ ...line, qty: 1, RecordReadOnly: [] }] },
    [
      ["UnknownProperty", "Details[0].qty"],
      ["ReadOnlyProperty", "Details[0].RecordReadOnly"],
    ],
  ],
  [
    "nested collection item",
    SalesOrder,
    "update",
    { Details: [line, line, { ...line, Notes: [{ Text: "hi" }, { Text: 5, Detail: guid }] }] },
    [
      ["InvalidType", "Details[2].Notes[1].Text"],
      ["ReadOnlyProperty", "Details[2].Notes[1].Detail"],
    ],
  ],
  [
    "every problem in every line",
    SalesOrder,
    "create",
    { Customer: 1, Details: [{ Item: 1 }, { ...line, Price: 0.00001 }] },
    [
      ["InvalidType", "Customer"],
      ["InvalidType", "Details[0].Item"],
      ["Required", "Details[0].Quantity"],
      ["TooPrecise", "Details[1].Price"],
      ["Required", "Number"],
    ],
  ],
];

describe("validateWrite on references, complex values and collections", () => {
  it.each(valid)("accepts: %s", (_, def, mode, body, value) => {
    expect(validateWrite(model, def, body, mode)).toEqual({ success: true, value });
  });

  it.each(invalid)("rejects: %s", (_, def, mode, body, issues) => {
    const result = validateWrite(model, def, body, mode);
    expect(result.success).toBe(false);
    if (!result.success) expect(result.issues.map((i) => [i.code, i.target])).toEqual(issues);
  });

  it("names the path in messages", () => {
    const result = validateWrite(
      model,
      SalesOrder,
      { Details: [line, { ...line, SalesOrder: "x", Quantity: 0 }] },
      "update",
    );
    expect(!result.success && result.issues.map((i) => i.message)).toEqual([
      "Details[1].Quantity must be at least 1.",
      "Details[1].SalesOrder is set by the owning SalesOrder; leave it out of the item.",
    ]);
    const member = validateWrite(model, Customer, { MailingAddress: { country: "DE" } }, "update");
    expect(!member.success && member.issues[0]?.message).toBe(
      'Customer.MailingAddress has no property "country"; property names are case sensitive (did you mean "Country"?)',
    );
  });
});
