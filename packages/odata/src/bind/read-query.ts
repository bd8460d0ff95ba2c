/**
 * The bound form of a read: every name resolved against the model, so the compiler never sees a
 * string from the URL. Shaped like the response, one node per entity (the `$expand` tree hangs
 * off it in the query-language work).
 */
import type { AnyEntity, ColumnMapping, VirtualField } from "@bizdata/core";

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
  /** the names of methods currently disabled for the record (spec 4.8) */
  | { readonly kind: "recordReadOnly"; readonly name: "RecordReadOnly" };

export interface ReadQuery {
  readonly entity: AnyEntity;
  readonly select: readonly SelectedProperty[];
  readonly top?: number;
  readonly skip?: number;
  readonly count: boolean;
}
