/**
 * The scenarios, one entry each: a name and a generator of requests. Both targets get the same
 * URLs and bodies, so adding a scenario here (and its route to the floor server) is all it takes.
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
  /** a fresh request sequence; called per measurement, and the generator is called per request */
  readonly requests: (data: ScenarioData) => () => BenchRequest;
}

export interface ScenarioData extends BenchData {
  /** a SKU no other request of this run (or an earlier run) has used */
  readonly uniqueSku: () => string;
}

const SELECT = "$select=SKU,SalesDescription,Cost";

/** cycles through the items, one per call */
const rotate = <T>(items: readonly T[]) => {
  let i = 0;
  return () => items[i++ % items.length]!;
};

export const scenarios: readonly Scenario[] = [
  {
    name: "read-one",
    requests: ({ guids }) => {
      const next = rotate(guids);
      return () => ({ method: "GET", path: `/api/Product(${next()})?${SELECT}` });
    },
  },
  {
    name: "list-select",
    requests: () => () => ({ method: "GET", path: `/api/Product?${SELECT}&$top=100` }),
  },
  {
    name: "create",
    requests:
      ({ uniqueSku }) =>
      () => ({
        method: "POST",
        path: "/api/Product",
        body: JSON.stringify({ SKU: uniqueSku(), SalesDescription: "Bench product", Cost: 12.5 }),
      }),
  },
];
