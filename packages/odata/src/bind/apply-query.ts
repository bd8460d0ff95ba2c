/**
 * The bound form of an `$apply` read (OData Data Aggregation): filters before grouping, the
 * grouping properties, the aggregates, filters on the grouped result, and its order and paging.
 */
import type { AnyEntity } from "@bizdata/core";
import type { BoundExpr } from "./bound-expr.js";
import type { OrderItem } from "./read-query.js";

export interface GroupProperty {
  /** `["SalesOrder", "Status"]`: where the value goes in the output object */
  readonly path: readonly string[];
  readonly expr: BoundExpr;
}

export interface AggregateProperty {
  readonly alias: string;
  readonly expr: BoundExpr;
}

export interface ApplyQuery {
  readonly entity: AnyEntity;
  /** `filter()` steps before the grouping (SQL WHERE) */
  readonly where?: BoundExpr;
  readonly groups: readonly GroupProperty[];
  readonly aggregates: readonly AggregateProperty[];
  /** `filter()` steps after the grouping (SQL HAVING) */
  readonly having?: BoundExpr;
  readonly orderBy: readonly OrderItem[];
  readonly top?: number;
  readonly skip?: number;
  readonly count: boolean;
}
