/**
 * The sample business logic of sales orders (spec 2.2; issue "writes", item 4): lines priced from
 * the product and the order's price level, the order total kept in step with its lines, save
 * rules for a customer and positive quantities, and a credit-limit question on save.
 */
import type { LogicHook, SaveHook } from "@bizdata/core";
import { multiply, sum } from "./money.js";

type Record_ = Record<string, unknown>;

/** a decimal of a record: a number, or an exact string when a number cannot hold it (null stays null) */
const amount = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** a line's price: the product's list price, less the order's price-level discount when that feature is on */
export const priceLine: LogicHook<Record_> = {
  name: "PriceLine",
  on: ["Product"],
  // the bulk form: a changeset's or an import's lines have their products and price levels loaded together
  reads: ({ record, owner, changed }) =>
    changed.has("UnitPrice")
      ? []
      : [
          ["Product", record.Product],
          ["PriceLevel", owner?.PriceLevel],
        ],
  async run({ record, owner, read, tenant, changed }) {
    // a price the client sent wins; otherwise a new product means a new price
    if (changed.has("UnitPrice")) return;
    const product = await read("Product", record.Product as string);
    if (product === null) return;
    let price = amount(product.Price) ?? 0;
    const level = owner?.PriceLevel as string | null | undefined;
    if (level && tenant.features.has("PriceLevels")) {
      const priceLevel = await read("PriceLevel", level);
      const discount = amount(priceLevel?.DiscountPercent) ?? 0;
      price = multiply(price, 1 - discount / 100);
    }
    record.UnitPrice = price;
    if (record.Description === null || record.Description === undefined)
      record.Description = product.SalesDescription ?? null;
  },
};

/** the order's total is the sum of its lines, recomputed whenever they change */
export const totalOrder: LogicHook<Record_> = {
  name: "TotalOrder",
  run({ record }) {
    const lines = (record.Details as Record_[] | undefined) ?? [];
    record.TotalPrice = sum(lines.map((l) => multiply(amount(l.Quantity) ?? 0, amount(l.UnitPrice) ?? 0)));
  },
};

export const requirePositiveQuantity: SaveHook<Record_> = {
  name: "PositiveQuantity",
  run({ record, reject }) {
    const quantity = amount(record.Quantity);
    if (quantity === null || !(quantity > 0)) reject("Quantity", "Quantity must be greater than zero.");
  },
};

export const requireCustomer: SaveHook<Record_> = {
  name: "RequireCustomer",
  run({ record, reject }) {
    if (record.SellToCustomer === null || record.SellToCustomer === undefined) {
      reject("SellToCustomer", "A sales order needs a customer (SellToCustomer).");
    }
  },
};

/** over the customer's credit limit: ask whether to save anyway (default: yes) */
export const creditCheck: SaveHook<Record_> = {
  name: "CreditCheck",
  feature: "CreditCheck",
  // the bulk form: a commit's or an import's orders have their customers loaded together
  reads: ({ record }) => [["Customer", record.SellToCustomer]],
  async run({ record, read, prompts, reject }) {
    const customer = record.SellToCustomer ? await read("Customer", record.SellToCustomer as string) : null;
    const limit = amount(customer?.CreditLimit);
    const total = amount(record.TotalPrice) ?? 0;
    if (limit === null || total <= limit) return;
    const text = `The order total ${total} is over the credit limit ${limit} of customer ${customer?.Id}.`;
    const answer = await prompts.ask({
      key: "credit-limit",
      text: `${text} Save anyway?`,
      entityGuid: record.Guid as string,
      choices: [
        { key: "continue", label: "Save anyway" },
        { key: "cancel", label: "Do not save" },
      ],
      default: "continue",
    });
    if (answer === "cancel") reject("TotalPrice", text);
    else prompts.message({ text, severity: "warning", entityGuid: record.Guid as string, property: "TotalPrice" });
  },
};

/** older clients send the customer as `CustomerId`; it means `SellToCustomer` (by Guid or Id) */
export const legacyCustomerId = {
  name: "LegacyCustomerId",
  run(body: Record_): Record_ {
    if (!Object.hasOwn(body, "CustomerId")) return body;
    const { CustomerId, ...rest } = body;
    return { ...rest, SellToCustomer: CustomerId };
  },
};
