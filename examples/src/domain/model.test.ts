import { describe, expect, expectTypeOf, it } from "vitest";
import { Contact, type ContactRecord } from "./contact.js";
import { sampleFeatures } from "./features.js";
import { sampleEntities, sampleModel } from "./model.js";
import { Product, type ProductRecord } from "./product.js";
import type { SalesOrderRecord } from "./sales-order.js";

describe("sampleModel", () => {
  it("registers every sample entity, and the virtual SalesOrderImport", () => {
    expect([...sampleModel.entities.keys()].sort()).toEqual(
      [...sampleEntities.map((e) => e.name), "SalesOrderImport"].sort(),
    );
    expect(sampleModel.entity("SalesOrderImport")?.storage).toBeDefined();
  });

  it("knows who owns the collection items", () => {
    const owners = Object.fromEntries(
      ["ProductUom", "SalesOrderDetail", "SalesInvoiceDetail"].map((name) => {
        const owner = sampleModel.owner(name);
        return [name, owner && `${owner.entity.name}.${owner.collection} ← ${owner.inverse}`];
      }),
    );
    expect(owners).toEqual({
      ProductUom: "Product.Uoms ← Product",
      SalesOrderDetail: "SalesOrder.Details ← SalesOrder",
      SalesInvoiceDetail: "SalesInvoice.Details ← SalesInvoice",
    });
  });

  it("declares the natural keys", () => {
    const keys = Object.fromEntries(sampleEntities.map((e) => [e.name, e.naturalKey]));
    expect(keys).toMatchObject({
      Product: { property: "SKU", unique: true },
      ProductUom: { property: "Name", unique: false },
      Customer: { property: "Id", unique: true },
      SalesOrderDetail: { property: "Guid", unique: true },
    });
  });

  it("keeps required fields non-nullable in the record types", () => {
    expectTypeOf<ProductRecord["SKU"]>().toEqualTypeOf<string>();
    expectTypeOf<ProductRecord["SalesDescription"]>().toEqualTypeOf<string | null>();
    expectTypeOf<SalesOrderRecord["Status"]>().toEqualTypeOf<"Open" | "Released" | "Closed" | null>();
    expectTypeOf<ContactRecord["MailingAddress"]["Country"]>().toEqualTypeOf<string | null>();
  });
});

describe("Contact", () => {
  const contact = (first: string | null, last: string | null, email: string | null = null) =>
    ({ FirstName: first, LastName: last, Email: email }) as ContactRecord;

  it("computes FullName without stray spaces", () => {
    const fullName = Contact.virtuals.FullName;
    expect(fullName.dependsOn).toEqual(["FirstName", "LastName"]);
    expect(fullName.compute(contact("Ada", "Lovelace"))).toBe("Ada Lovelace");
    expect(fullName.compute(contact(null, "Lovelace"))).toBe("Lovelace");
    expect(fullName.compute(contact("Ada", null))).toBe("Ada");
  });

  it("is titled by name, else by email", () => {
    expect(Contact.title?.(contact("Ada", "Lovelace", "ada@example.com"))).toBe("Ada Lovelace");
    expect(Contact.title?.(contact(null, null, "ada@example.com"))).toBe("ada@example.com");
  });
});

it("titles a product by its description, else its SKU", () => {
  const product = (description: string | null) => ({ SKU: "SKU-1", SalesDescription: description }) as ProductRecord;
  expect(Product.title?.(product("Oak Shelf"))).toBe("Oak Shelf");
  expect(Product.title?.(product(null))).toBe("SKU-1");
});

it("names each sample feature once", () => {
  expect(new Set(sampleFeatures).size).toBe(sampleFeatures.length);
  expect(sampleFeatures).toEqual(["PriceLevels", "CreditCheck", "CostChangeNotice"]);
});
