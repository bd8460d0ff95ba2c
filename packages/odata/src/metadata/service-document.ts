/**
 * The service document (OData JSON Format 4.01 §5): what a client finds at the service root —
 * the entity sets, and the function imports of static Read methods — each with the URL relative
 * to the root, and `$metadata` as its context.
 */
import type { EdmDocument } from "./edm.js";

export interface ServiceDocument {
  readonly "@odata.context": string;
  readonly value: readonly {
    readonly name: string;
    readonly kind: "EntitySet" | "FunctionImport";
    readonly url: string;
  }[];
}

export function serviceDocument(edm: EdmDocument): ServiceDocument {
  const { entitySets, imports } = edm.schema.container;
  return {
    "@odata.context": "$metadata",
    value: [
      ...entitySets.map((s) => ({ name: s.name, kind: "EntitySet" as const, url: s.name })),
      ...imports
        .filter((i) => i.kind === "function" && i.includeInServiceDocument)
        .map((i) => ({ name: i.name, kind: "FunctionImport" as const, url: i.name })),
    ],
  };
}
