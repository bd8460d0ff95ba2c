import { SalesInvoice, SalesInvoiceDetail } from "../domain/sales-invoice.js";
import { SalesOrder, SalesOrderDetail } from "../domain/sales-order.js";
import { type SampleBatch, titled, withItems } from "./batches.js";
import { anyOf, type Generated } from "./generated.js";
import type { Random } from "./random.js";
import type { SampleSizes } from "./sizes.js";
import { dayCount, isoDay, numbered, round } from "./values.js";
import { orderDescriptions } from "./vocabulary.js";

/** Mostly open orders, as in a live system; a few released and closed ones. */
const orderStatus = (rng: Random) => {
  const r = rng.float();
  return r < 0.7 ? "Open" : r < 0.9 ? "Released" : "Closed";
};

/** Orders with their lines, priced at the product's price less the order's price level discount. */
export function* salesOrderBatches(rng: Random, sizes: SampleSizes, generated: Generated): Generator<SampleBatch> {
  yield* withItems("SalesOrder", "SalesOrderDetail", sizes.orders, (i, details) => {
    const guid = rng.uuid();
    const level = rng.chance(0.5) ? anyOf(rng, generated.priceLevels) : null;
    const payable = 1 - (level?.discountPercent ?? 0) / 100;
    let total = 0;
    for (let line = 1; line <= sizes.linesPerOrder; line++) {
      const product = rng.pick(generated.products);
      const quantity = rng.int(1, 20);
      const unitPrice = round(product.price * payable, 4);
      total += quantity * unitPrice;
      details.push(
        titled(SalesOrderDetail, {
          Guid: rng.uuid(),
          Title: null,
          SalesOrder: guid,
          LineNumber: line,
          Product: product.guid,
          Description: product.description,
          Quantity: quantity,
          UnitPrice: unitPrice,
        }),
      );
    }
    return titled(SalesOrder, {
      Guid: guid,
      Title: null,
      DocNumber: numbered("SO-", i + 1, 6),
      Description: rng.pick(orderDescriptions),
      OrderDate: isoDay(rng.int(0, dayCount - 1)),
      TotalPrice: round(total, 4),
      Status: orderStatus(rng),
      SellToCustomer: anyOf(rng, generated.customers),
      PriceLevel: level?.guid ?? null,
    });
  });
}

/** Invoices with their lines at list price; some already posted. */
export function* salesInvoiceBatches(rng: Random, sizes: SampleSizes, generated: Generated): Generator<SampleBatch> {
  yield* withItems("SalesInvoice", "SalesInvoiceDetail", sizes.invoices, (i, details) => {
    const guid = rng.uuid();
    for (let line = 1; line <= sizes.linesPerOrder; line++) {
      const product = rng.pick(generated.products);
      details.push(
        titled(SalesInvoiceDetail, {
          Guid: rng.uuid(),
          Title: null,
          SalesInvoice: guid,
          Product: product.guid,
          Description: product.description,
          Quantity: rng.int(1, 10),
          UnitPrice: product.price,
        }),
      );
    }
    return titled(SalesInvoice, {
      Guid: guid,
      Title: null,
      DocNumber: numbered("SI-", i + 1, 6),
      InvoiceDate: isoDay(rng.int(0, dayCount - 1)),
      IsPosted: rng.chance(0.4),
      Customer: anyOf(rng, generated.customers),
    });
  });
}
