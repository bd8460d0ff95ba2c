import { Country } from "../domain/country.js";
import { PriceLevel } from "../domain/price-level.js";
import { Product, ProductUom } from "../domain/product.js";
import { inBatches, type SampleBatch, titled, withItems } from "./batches.js";
import type { Generated } from "./generated.js";
import type { Random } from "./random.js";
import type { SampleSizes } from "./sizes.js";
import { numbered, round } from "./values.js";
import {
  boxSizes,
  countryList,
  priceLevelList,
  productAdjectives,
  productMaterials,
  productNouns,
} from "./vocabulary.js";

export function* countryBatches(rng: Random, sizes: SampleSizes, generated: Generated): Generator<SampleBatch> {
  yield* inBatches("Country", sizes.countries, (i) => {
    const [code, name] = countryList[i]!;
    const country = titled(Country, { Guid: rng.uuid(), Title: null, Code: code, Name: name });
    generated.countries.push(country.Guid);
    return country;
  });
}

export function* priceLevelBatches(rng: Random, sizes: SampleSizes, generated: Generated): Generator<SampleBatch> {
  yield* inBatches("PriceLevel", sizes.priceLevels, (i) => {
    const [name, discountPercent] = priceLevelList[i] ?? [`Level ${i + 1}`, rng.int(1, 50)];
    const level = titled(PriceLevel, { Guid: rng.uuid(), Title: null, Name: name, DiscountPercent: discountPercent });
    generated.priceLevels.push({ guid: level.Guid, discountPercent });
    return level;
  });
}

export function* productBatches(rng: Random, sizes: SampleSizes, generated: Generated): Generator<SampleBatch> {
  yield* withItems("Product", "ProductUom", sizes.products, (i, uoms) => {
    const cost = rng.int(100, 50_000) / 100;
    const price = round(cost * (1.2 + rng.float() * 0.8), 2);
    const description = `${rng.pick(productAdjectives)} ${rng.pick(productMaterials)} ${rng.pick(productNouns)}`;
    const product = titled(Product, {
      Guid: rng.uuid(),
      Title: null,
      SKU: numbered("SKU-", i + 1, 6),
      SalesDescription: description,
      Cost: cost,
      Price: price,
      // from the index, not the random source, so that the rest of the data set stays as it was
      LeadTime: `P${(i % 4) * 7 + 3}D`,
    });
    const uom = (name: string, factor: number) =>
      titled(ProductUom, { Guid: rng.uuid(), Title: null, Product: product.Guid, Name: name, Factor: factor });
    uoms.push(uom("Each", 1), uom("Box", rng.pick(boxSizes)));
    generated.products.push({ guid: product.Guid, price, description });
    return product;
  });
}
