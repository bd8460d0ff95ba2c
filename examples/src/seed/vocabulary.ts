/** Word lists the generator draws names, addresses and descriptions from. */

/** ISO 3166-1 alpha-2 codes; the sample can have at most this many countries. */
export const countryList: readonly (readonly [code: string, name: string])[] = [
  ["US", "United States"],
  ["CA", "Canada"],
  ["MX", "Mexico"],
  ["GB", "United Kingdom"],
  ["IE", "Ireland"],
  ["FR", "France"],
  ["DE", "Germany"],
  ["NL", "Netherlands"],
  ["BE", "Belgium"],
  ["ES", "Spain"],
  ["PT", "Portugal"],
  ["IT", "Italy"],
  ["CH", "Switzerland"],
  ["AT", "Austria"],
  ["SE", "Sweden"],
  ["NO", "Norway"],
  ["DK", "Denmark"],
  ["PL", "Poland"],
  ["JP", "Japan"],
  ["AU", "Australia"],
];

/** Named price levels first; further levels are numbered. */
export const priceLevelList: readonly (readonly [name: string, discountPercent: number])[] = [
  ["Retail", 0],
  ["Preferred", 5],
  ["Wholesale", 10],
  ["Distributor", 15],
  ["Employee", 25],
];

export const firstNames = [
  "Ava",
  "Ben",
  "Chloe",
  "Daniel",
  "Elena",
  "Farid",
  "Grace",
  "Hiro",
  "Isla",
  "Jonas",
  "Kemi",
  "Liam",
  "Maya",
  "Noah",
  "Olga",
  "Pablo",
  "Quinn",
  "Rosa",
  "Sven",
  "Tara",
];

export const lastNames = [
  "Adams",
  "Berg",
  "Castro",
  "Dubois",
  "Evans",
  "Fischer",
  "Garcia",
  "Hansen",
  "Ito",
  "Jensen",
  "Kowalski",
  "Lopez",
  "Murphy",
  "Novak",
  "Okafor",
  "Patel",
  "Rossi",
  "Schmidt",
  "Tanaka",
  "Walsh",
];

export const companySuffixes = ["Trading", "Supply", "Industries", "& Sons", "Group", "Outfitters", "Co."];

export const streetNames = ["Oak", "Maple", "Harbor", "Mill", "Station", "Church", "Park", "River", "Hill", "Market"];
export const streetKinds = ["Street", "Avenue", "Road", "Lane", "Way"];
export const cities = ["Springfield", "Riverton", "Fairview", "Lakeside", "Georgetown", "Ashford", "Kingsport"];
export const states = [
  "PA",
  "CA",
  "NY",
  "TX",
  "WA",
  "IL",
  "OH",
  "FL",
  "Ontario",
  "Bavaria",
  "Catalonia",
  "Lombardy",
  "Kanto",
];

export const productAdjectives = ["Compact", "Heavy-duty", "Deluxe", "Slim", "Classic", "Rugged", "Portable"];
export const productMaterials = ["Steel", "Oak", "Aluminium", "Ceramic", "Cotton", "Bamboo", "Brass", "Glass"];
export const productNouns = ["Bracket", "Lamp", "Shelf", "Kettle", "Stool", "Hinge", "Basket", "Vase", "Clamp"];

export const boxSizes = [6, 12, 24];

export const orderDescriptions = ["Web order", "Phone order", "Restock", "Seasonal promotion", "Trade show"];
export const journalDescriptions = ["Month-end accrual", "Depreciation", "Bank fees", "Payroll", "Stock adjustment"];
