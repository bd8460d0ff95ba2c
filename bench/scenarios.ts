/**
 * The scenarios, one entry each: a name and a generator of requests. Both targets get the same
 * URLs and bodies, so adding a scenario here (and its route to the floor server) is all it takes.
 * The query-language scenarios (issue "OData query language") export their URLs so the floor can
 * route on the exact text and the parser benchmark can parse the same query strings.
 */
import type { BenchData } from "./prepare.js";

export interface BenchRequest {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  readonly path: string;
  /** JSON text */
  readonly body?: string;
}

export interface Scenario {
  readonly name: string;
  /**
   * what must agree between the host's and the floor's first answer before anything is measured:
   * `values` the whole parsed body (same records, same values), `shape` only the JSON shape (for
   * answers that differ by design, like a new record's Guid)
   */
  readonly compare: "values" | "shape";
  /** a fresh request sequence; called per measurement, and the generator is called per request */
  readonly requests: (data: ScenarioData) => () => BenchRequest;
}

export interface ScenarioData extends BenchData {
  /** a SKU no other request of this run (or an earlier run) has used */
  readonly uniqueSku: () => string;
}

/**
 * A query option's value percent-encoded, `'` too: fetch (WHATWG URL) encodes a quote in a query
 * and autocannon sends it as it is, so only an encoded quote reaches the servers the same from both.
 */
export const encodeOption = (value: string): string => encodeURIComponent(value).replaceAll("'", "%27");

/** `/api/{resource}?name=value&…` with each value percent-encoded */
export const odataUrl = (resource: string, options: readonly (readonly [string, string])[]): string =>
  `/api/${resource}?${options.map(([name, value]) => `${name}=${encodeOption(value)}`).join("&")}`;

/**
 * The issue's query mix, decoded: a resource and its options. The sample data has no contact in
 * Pennsylvania, so the path filter asks for Texas (about a tenth of the customers), where `PA`
 * would measure an empty answer.
 */
export const queryMix = {
  "query-filter": [
    "Product",
    [
      ["$select", "SKU,SalesDescription,Cost"],
      ["$filter", "Cost lt 50"],
      ["$orderby", "SKU"],
      ["$top", "100"],
    ],
  ],
  "query-path-expand": [
    "Customer",
    [
      ["$filter", "PrimaryContact/MailingAddress/State eq 'TX'"],
      ["$select", "Id,Title"],
      ["$expand", "PrimaryContact($select=FirstName,LastName)"],
      ["$top", "50"],
    ],
  ],
  "query-nested-expand": [
    "SalesOrder",
    [
      ["$filter", "Status eq 'Open'"],
      ["$expand", "Details($select=Quantity,UnitPrice;$expand=Product($select=SKU))"],
      ["$top", "20"],
    ],
  ],
  "query-aggregate": [
    "SalesOrderDetail",
    [["$apply", "filter(SalesOrder/Status eq 'Open')/aggregate(Quantity with sum as Total)"]],
  ],
  "query-count": [
    "SalesOrder",
    [
      ["$count", "true"],
      ["$top", "0"],
    ],
  ],
} as const satisfies Record<string, readonly [string, readonly (readonly [string, string])[]]>;

export type QueryMixName = keyof typeof queryMix;

/** the URL each query-mix scenario requests */
export const queryMixUrl = (name: QueryMixName): string => {
  const [resource, options] = queryMix[name];
  return odataUrl(resource, options);
};

/** read-one's options: `Product(<guid>)?$select=SKU,Cost` */
export const READ_ONE_OPTIONS = [["$select", "SKU,Cost"]] as const;
export const readOneUrl = (guid: string): string => odataUrl(`Product(${guid})`, READ_ONE_OPTIONS);

/** list-select's options: a page of products, three properties each */
export const LIST_SELECT_OPTIONS = [
  ["$select", "SKU,SalesDescription,Cost"],
  ["$top", "100"],
] as const;

/** cycles through the items, one per call */
const rotate = <T>(items: readonly T[]) => {
  let i = 0;
  return () => items[i++ % items.length]!;
};

const fixed = (name: QueryMixName): Scenario => {
  const path = queryMixUrl(name);
  return { name, compare: "values", requests: () => () => ({ method: "GET", path }) };
};

export const scenarios: readonly Scenario[] = [
  {
    name: "read-one",
    compare: "values",
    requests: ({ guids }) => {
      const next = rotate(guids);
      return () => ({ method: "GET", path: readOneUrl(next()) });
    },
  },
  {
    name: "list-select",
    compare: "values",
    requests: () => () => ({ method: "GET", path: odataUrl("Product", LIST_SELECT_OPTIONS) }),
  },
  fixed("query-filter"),
  fixed("query-path-expand"),
  fixed("query-nested-expand"),
  fixed("query-aggregate"),
  fixed("query-count"),
  // last: the products it adds must not change what the reads above answer within a run
  {
    name: "create",
    compare: "shape",
    requests:
      ({ uniqueSku }) =>
      () => ({
        method: "POST",
        path: "/api/Product",
        body: JSON.stringify({ SKU: uniqueSku(), SalesDescription: "Bench product", Cost: 12.5 }),
      }),
  },
];
