/**
 * The bound form of a read: every name resolved against the model, so the compiler never sees a
 * string from the URL. Shaped like the response: one node per entity, `$expand` children below.
 */
import type { AnyEntity, ColumnMapping, Model, VirtualField } from "@bizdata/core";
import type { ApplyQuery } from "./apply-query.js";
import type { BoundSearch } from "./bind-search.js";
import type { BoundExpr, Navigation } from "./bound-expr.js";

export type SelectedProperty =
  /** a scalar, or a reference's Guid */
  | { readonly kind: "column"; readonly name: string; readonly column: ColumnMapping }
  /** a complex value, all of its members */
  | { readonly kind: "complex"; readonly name: string; readonly members: readonly ColumnMapping[] }
  /** computed in TypeScript from `dependsOn` columns, only because it was selected */
  | {
      readonly kind: "virtual";
      readonly name: string;
      readonly field: VirtualField;
      readonly dependsOn: readonly ColumnMapping[];
    }
  /** a `$compute` alias */
  | { readonly kind: "computed"; readonly name: string; readonly expr: BoundExpr }
  /**
   * the names of methods currently disabled for the record (spec 4.8), computed in TypeScript from
   * `dependsOn` (every persisted column when some method has a DisableIf, else none) and the
   * tenant's features
   */
  | {
      readonly kind: "recordReadOnly";
      readonly name: "RecordReadOnly";
      /** the model whose subscribers decide (their DisableIf) */
      readonly model: Model;
      readonly entity: AnyEntity;
      readonly dependsOn: readonly ColumnMapping[];
    };

export interface OrderItem {
  readonly expr: BoundExpr;
  readonly direction: "asc" | "desc";
}

/** `$expand` of a to-one reference (top level or inside a complex value): an object or null */
export interface ReferenceExpand {
  readonly kind: "reference";
  /** `["PrimaryContact"]` or `["MailingAddress", "Country"]`: where the object goes in the output */
  readonly path: readonly string[];
  readonly navigation: Navigation;
  readonly query: ReadQuery;
}

/** `$expand` of an owned collection: an array, with its own filter, order and paging */
export interface CollectionExpand {
  readonly kind: "collection";
  readonly name: string;
  readonly inverse: ColumnMapping;
  /** the items' read; with `apply`, only its entity and `count` count (nothing of the items is selected) */
  readonly query: ReadQuery;
  /** `$apply` inside the `$expand`: the array holds the aggregated rows instead of the items */
  readonly apply?: ApplyQuery;
}

export type ExpandNode = ReferenceExpand | CollectionExpand;

export interface ReadQuery {
  readonly entity: AnyEntity;
  readonly select: readonly SelectedProperty[];
  readonly expand: readonly ExpandNode[];
  readonly filter?: BoundExpr;
  /** `$search`: only records whose searchable text matches */
  readonly search?: BoundSearch;
  readonly orderBy: readonly OrderItem[];
  readonly top?: number;
  readonly skip?: number;
  readonly count: boolean;
}

/**
 * The members of a selected complex value that are written as values: all but those expanded as
 * references (`MailingAddress/Country`), which their expansion writes in their place.
 */
export function membersWritten(
  query: ReadQuery,
  complex: { readonly name: string; readonly members: readonly ColumnMapping[] },
): readonly ColumnMapping[] {
  const expanded = new Set(
    query.expand.flatMap((e) => (e.kind === "reference" && e.path[0] === complex.name ? [e.path[1]] : [])),
  );
  return complex.members.filter((m) => !expanded.has(m.path[1]));
}
