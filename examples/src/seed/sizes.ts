import type { SampleEntityName } from "../domain/model.js";
import { countryList } from "./vocabulary.js";

/** How many records of each kind the generator produces. */
export interface SampleSizes {
  /** at most the number of built-in ISO countries (20) */
  readonly countries: number;
  readonly products: number;
  /** also the number of contacts: each customer has its own primary contact */
  readonly customers: number;
  readonly priceLevels: number;
  readonly orders: number;
  /** detail lines on every sales order and every sales invoice */
  readonly linesPerOrder: number;
  readonly invoices: number;
  readonly journals: number;
}

export type SampleOptions = Partial<SampleSizes> & {
  /** an integer; the same seed and sizes give the same data */
  readonly seed?: number;
};

export const defaultSampleSizes: SampleSizes = {
  countries: countryList.length,
  products: 10_000,
  customers: 5_000,
  priceLevels: 5,
  orders: 20_000,
  linesPerOrder: 5,
  invoices: 2_000,
  journals: 1_000,
};

/** Every product is sold by the piece and by the box. */
export const uomsPerProduct = 2;

export function resolveSizes(options: SampleOptions = {}): SampleSizes {
  const sizes: { -readonly [K in keyof SampleSizes]: number } = { ...defaultSampleSizes };
  for (const key of Object.keys(defaultSampleSizes) as (keyof SampleSizes)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${key} must be a whole number ≥ 0.`);
    sizes[key] = value;
  }
  if (sizes.countries > countryList.length) {
    throw new RangeError(`countries can be at most ${countryList.length}, the number of built-in ISO codes.`);
  }
  if (sizes.products === 0 && (sizes.orders + sizes.invoices) * sizes.linesPerOrder > 0) {
    throw new RangeError("Order and invoice lines need at least one product.");
  }
  return sizes;
}

/** How many records of each entity `generateSampleData(options)` yields, in the order it yields them. */
export function sampleTotals(options: SampleOptions = {}): Readonly<Record<SampleEntityName, number>> {
  const s = resolveSizes(options);
  return {
    Country: s.countries,
    PriceLevel: s.priceLevels,
    Product: s.products,
    ProductUom: s.products * uomsPerProduct,
    Contact: s.customers,
    Customer: s.customers,
    SalesOrder: s.orders,
    SalesOrderDetail: s.orders * s.linesPerOrder,
    SalesInvoice: s.invoices,
    SalesInvoiceDetail: s.invoices * s.linesPerOrder,
    Journal: s.journals,
  };
}
