import { Contact } from "../domain/contact.js";
import { Customer } from "../domain/customer.js";
import { inBatches, type SampleBatch, titled } from "./batches.js";
import { anyOf, type Generated } from "./generated.js";
import type { Random } from "./random.js";
import type { SampleSizes } from "./sizes.js";
import { numbered } from "./values.js";
import { cities, companySuffixes, firstNames, lastNames, states, streetKinds, streetNames } from "./vocabulary.js";

/** One contact per customer, to be its primary contact. */
export function* contactBatches(rng: Random, sizes: SampleSizes, generated: Generated): Generator<SampleBatch> {
  yield* inBatches("Contact", sizes.customers, (i) => {
    const first = rng.pick(firstNames);
    const last = rng.pick(lastNames);
    const contact = titled(Contact, {
      Guid: rng.uuid(),
      Title: null,
      // the running number keeps emails unique however the names repeat
      Email: `${first}.${last}.${i + 1}@example.com`.toLowerCase(),
      FirstName: first,
      LastName: last,
      MailingAddress: {
        Street: `${rng.int(1, 9999)} ${rng.pick(streetNames)} ${rng.pick(streetKinds)}`,
        City: rng.pick(cities),
        State: rng.pick(states),
        PostalCode: String(rng.int(10_000, 99_999)),
        Country: anyOf(rng, generated.countries),
      },
    });
    generated.contacts.push(contact.Guid);
    return contact;
  });
}

export function* customerBatches(rng: Random, sizes: SampleSizes, generated: Generated): Generator<SampleBatch> {
  yield* inBatches("Customer", sizes.customers, (i) => {
    const customer = titled(Customer, {
      Guid: rng.uuid(),
      Title: null,
      Id: numbered("C-", i + 1, 5),
      Name: `${rng.pick(lastNames)} ${rng.pick(companySuffixes)}`,
      PrimaryContact: generated.contacts[i] ?? null,
      CreditLimit: rng.int(1, 200) * 500,
    });
    generated.customers.push(customer.Guid);
    return customer;
  });
}
