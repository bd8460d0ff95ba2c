/**
 * The function and action imports of a model: every static method (spec 4.8) is also offered
 * unbound, at the service root, under its own name, or `{Entity}_{Method}` when several entities
 * have a static method of that name. `$metadata` declares them (edm-operations.ts) and the service
 * answers them (service/operation-import-path.ts) from this one list.
 */
import type { Model } from "@bizdata/core";

export interface OperationImport {
  /** the entity whose static method the import calls */
  readonly entity: string;
  readonly method: string;
}

/** import name → the static method it calls, in model order */
export function operationImports(model: Model): ReadonlyMap<string, OperationImport> {
  const count = new Map<string, number>();
  for (const entity of model.entities.values()) {
    for (const [name, m] of Object.entries(entity.methods)) if (m.isStatic) count.set(name, (count.get(name) ?? 0) + 1);
  }
  const imports = new Map<string, OperationImport>();
  for (const entity of model.entities.values()) {
    for (const [method, m] of Object.entries(entity.methods)) {
      if (!m.isStatic) continue;
      imports.set(count.get(method)! > 1 ? `${entity.name}_${method}` : method, { entity: entity.name, method });
    }
  }
  return imports;
}
