/**
 * A small, hand-made data set of the sample domain for the query-language tests, small enough
 * that every expected answer can be worked out by hand (and, for the property tests, by the
 * TypeScript evaluator over the same values). It is written through the service like a client would,
 * into the caller's tenant.
 */
import { columnOf, type Database, tableName } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import { expect } from "vitest";
import type { ServiceTenant } from "./odata-harness.js";

export interface FixtureProduct {
  readonly SKU: string;
  readonly SalesDescription: string | null;
  readonly Cost: number | null;
  readonly Price: number | null;
  readonly Uoms: readonly { readonly Name: string; readonly Factor: number }[];
}

export interface FixtureLine {
  readonly LineNumber: number;
  readonly Product: string;
  readonly Quantity: number;
  readonly UnitPrice: number | null;
  readonly Description: string | null;
}

export interface FixtureOrder {
  readonly DocNumber: string;
  readonly Description: string | null;
  readonly OrderDate: string | null;
  readonly Status: "Open" | "Released" | "Closed";
  readonly SellToCustomer: string | null;
  readonly PriceLevel: string | null;
  /** what the service is meant to keep: Σ Quantity × UnitPrice; null for orders never priced */
  readonly TotalPrice: number | null;
  readonly Details: readonly FixtureLine[];
}

export const countries = [
  { Code: "US", Name: "United States" },
  { Code: "CA", Name: "Canada" },
  { Code: "DE", Name: "Germany" },
] as const;

export const contacts = [
  {
    Email: "ann@example.com",
    FirstName: "Ann",
    LastName: "Able",
    MailingAddress: { Street: "1 Main St", City: "Philadelphia", State: "PA", PostalCode: "19103", Country: "US" },
  },
  {
    Email: "bob@example.com",
    FirstName: "Bob",
    LastName: "Baker",
    MailingAddress: { City: "New York", State: "NY", Country: "US" },
  },
  { Email: "cy@example.com", FirstName: "Cy", LastName: null, MailingAddress: { City: "Toronto", Country: "CA" } },
  {
    Email: "dee@example.com",
    FirstName: "Dee",
    LastName: "O'Brien",
    MailingAddress: { City: "Pittsburgh", State: "PA" },
  },
  { Email: "eve@example.com", FirstName: null, LastName: "Evans" },
] as const;

export const customers = [
  { Id: "C001", Name: "Acme", PrimaryContact: "ann@example.com", CreditLimit: 1000 },
  { Id: "C002", Name: "Beta", PrimaryContact: "bob@example.com", CreditLimit: 500 },
  { Id: "C003", Name: "Gamma", PrimaryContact: "cy@example.com", CreditLimit: null },
  { Id: "C004", Name: "Delta", PrimaryContact: "dee@example.com", CreditLimit: 250.5 },
  { Id: "C005", Name: null, PrimaryContact: null, CreditLimit: 0 },
] as const;

export const products: readonly FixtureProduct[] = [
  {
    SKU: "WID-001",
    SalesDescription: "Blue widget",
    Cost: 2.5,
    Price: 5,
    Uoms: [
      { Name: "Each", Factor: 1 },
      { Name: "Box", Factor: 12 },
    ],
  },
  { SKU: "WID-002", SalesDescription: "  Red widget  ", Cost: 10, Price: 20, Uoms: [{ Name: "Each", Factor: 1 }] },
  { SKU: "GAD-100", SalesDescription: "Gadget 100% steel", Cost: null, Price: 12.75, Uoms: [] },
  { SKU: "GAD_200", SalesDescription: "Gadget_200", Cost: 7.25, Price: null, Uoms: [] },
  { SKU: "BOLT-9", SalesDescription: "O'Brien's bolt", Cost: 0.1, Price: 0.3, Uoms: [{ Name: "Bag", Factor: 50 }] },
  { SKU: "ÜBER-1", SalesDescription: "Über-Gerät ✓ 日本", Cost: 100, Price: 150, Uoms: [] },
  { SKU: "PCT%OFF", SalesDescription: null, Cost: 1, Price: null, Uoms: [] },
];

export const priceLevels = [
  { Name: "Retail", DiscountPercent: 0 },
  { Name: "Wholesale", DiscountPercent: 10.5 },
  { Name: "VIP", DiscountPercent: 25 },
] as const;

const line = (
  LineNumber: number,
  Product: string,
  Quantity: number,
  UnitPrice: number | null,
  Description: string | null = null,
): FixtureLine => ({ LineNumber, Product, Quantity, UnitPrice, Description });

export const orders: readonly FixtureOrder[] = [
  {
    DocNumber: "SO-001",
    Description: "First order",
    OrderDate: "2024-01-15",
    Status: "Open",
    SellToCustomer: "C001",
    PriceLevel: "Retail",
    TotalPrice: 68.25,
    Details: [line(1, "WID-001", 2, 5, "blue ones"), line(2, "WID-002", 1, 20), line(3, "GAD-100", 3, 12.75)],
  },
  {
    DocNumber: "SO-002",
    Description: "Rush delivery",
    OrderDate: "2024-02-29",
    Status: "Open",
    SellToCustomer: "C002",
    PriceLevel: "Wholesale",
    TotalPrice: 70,
    Details: [line(1, "WID-001", 10, 4.5), line(2, "BOLT-9", 100, 0.25, "loose")],
  },
  {
    DocNumber: "SO-003",
    Description: null,
    OrderDate: "2023-12-31",
    Status: "Closed",
    SellToCustomer: "C001",
    PriceLevel: null,
    TotalPrice: 0,
    Details: [line(1, "GAD_200", 1, null)],
  },
  {
    DocNumber: "SO-004",
    Description: "O'Brien order",
    OrderDate: "2024-07-04",
    Status: "Closed",
    SellToCustomer: "C004",
    PriceLevel: "VIP",
    TotalPrice: null,
    Details: [],
  },
  {
    DocNumber: "SO-005",
    Description: "Big one",
    OrderDate: "2024-01-01",
    Status: "Released",
    SellToCustomer: "C003",
    PriceLevel: "Retail",
    TotalPrice: 446,
    Details: [
      line(1, "WID-002", 5, 18),
      line(2, "ÜBER-1", 2, 150),
      line(3, "WID-001", 1, 5),
      line(4, "GAD-100", 4, 12.75),
    ],
  },
  {
    DocNumber: "SO-006",
    Description: "Empty",
    OrderDate: null,
    Status: "Open",
    SellToCustomer: null,
    PriceLevel: null,
    TotalPrice: null,
    Details: [],
  },
];

export interface LoadedFixture {
  /** Guid by natural key, per entity: `guids.Product["WID-001"]` */
  readonly guids: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/**
 * Writes the data set through POSTs (references by natural key, lines and units as deep
 * collections). `TotalPrice` is set in the database to the fixture's hand-computed value too, so
 * the answers below never depend on the sample logic that also maintains it.
 */
export async function loadFixture(api: ServiceTenant, db: Database): Promise<LoadedFixture> {
  const guids: Record<string, Record<string, string>> = {};
  const post = async (entity: string, key: string, body: object) => {
    const res = await api.call("POST", `/api/${entity}`, { body });
    const text = await res.text();
    expect(res.status, `${entity} ${key}: ${text}`).toBe(201);
    guids[entity] ??= {};
    guids[entity][key] = (JSON.parse(text) as { Guid: string }).Guid;
  };
  for (const country of countries) await post("Country", country.Code, country);
  for (const contact of contacts) await post("Contact", contact.Email, contact);
  for (const customer of customers) await post("Customer", customer.Id, customer);
  for (const level of priceLevels) await post("PriceLevel", level.Name, level);
  for (const product of products) await post("Product", product.SKU, product);
  const table = tableName(sampleModel.entity("SalesOrder")!);
  const column = columnOf(sampleModel.entity("SalesOrder")!, ["TotalPrice"])!.column;
  const customerColumn = columnOf(sampleModel.entity("SalesOrder")!, ["SellToCustomer"])!.column;
  for (const { TotalPrice, ...order } of orders) {
    // save logic refuses an order without a customer; the null case is made in the database
    await post("SalesOrder", order.DocNumber, { ...order, SellToCustomer: order.SellToCustomer ?? customers[0]!.Id });
    await db.query({
      sql: `UPDATE ${table} SET ${column} = $1${order.SellToCustomer === null ? `, ${customerColumn} = NULL` : ""} WHERE tenant_id = $2 AND guid = $3`,
      params: [TotalPrice, api.tenantId, guids.SalesOrder![order.DocNumber]],
    });
  }
  return { guids };
}
