/**
 * Whether two targets answered a scenario's probe alike, before anything is measured: a target
 * that answers something else (an error page, an empty set) would be measured doing less work.
 */
import { isDeepStrictEqual } from "node:util";
import type { Scenario } from "./scenarios.js";

/** a JSON value with every leaf replaced by its type: what "the same response" means across targets */
const shape = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.slice(0, 1).map(shape)
    : value !== null && typeof value === "object"
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]))
      : typeof value;

/** an answer that proves nothing when both targets give it */
const empty = (value: unknown) => isDeepStrictEqual(value, { value: [] });

/** paging and counts are part of the answer's data */
const DATA_ANNOTATIONS = new Set(["@odata.count", "@odata.nextLink"]);

/** the answer without OData control information (`@odata.context`, `@odata.etag`, …) at any depth */
export const withoutControl = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(withoutControl)
    : value !== null && typeof value === "object"
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([k]) => !k.startsWith("@odata.") || DATA_ANNOTATIONS.has(k))
            .map(([k, v]) => [k, withoutControl(v)]),
        )
      : value;

/** throws, naming both answers, unless `a` and `b` agree as the scenario's `compare` asks */
export function assertAgree(
  scenario: Scenario,
  [aName, a]: readonly [string, unknown],
  [bName, b]: readonly [string, unknown],
): void {
  const agree =
    scenario.compare === "values" ? isDeepStrictEqual(a, b) && !empty(a) : isDeepStrictEqual(shape(a), shape(b));
  if (!agree)
    throw new Error(
      `${scenario.name}: the ${bName} and the ${aName} must give the same ${scenario.compare === "values" ? "non-empty answer" : "shape of answer"}; the ${aName} answers ${JSON.stringify(a)}, the ${bName} ${JSON.stringify(b)}`,
    );
}
