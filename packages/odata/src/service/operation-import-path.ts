/**
 * An operation import's address (`GetOpenOrders(customerId='C1')` at the service root, the
 * FunctionImport of `$metadata`) as the collection-bound static method it offers unbound
 * (`SalesOrder/GetOpenOrders(customerId='C1')`): the service answers both alike. Entity sets win
 * over imports, though CSDL keeps their names apart anyway (schema-names.ts).
 */
import type { Model } from "@bizdata/core";
import { type OperationImport, operationImports } from "../metadata/operation-imports.js";
import { QuerySyntaxError } from "../syntax/syntax-error.js";

const importsByModel = new WeakMap<Model, ReadonlyMap<string, OperationImport>>();

const LEADING_NAME = /^([A-Za-z_][A-Za-z0-9_]*)(?=$|[(/])/;

export interface ImportPath {
  /** the bound address the import stands for */
  readonly path: string;
  /** a syntax error in `path` as a position in the address the client wrote */
  readonly asWritten: (error: unknown) => unknown;
}

function importsOf(model: Model): ReadonlyMap<string, OperationImport> {
  let imports = importsByModel.get(model);
  if (imports === undefined) {
    imports = operationImports(model);
    importsByModel.set(model, imports);
  }
  return imports;
}

/**
 * Whether `path` (a resource path after the base path) starts at an entity set or an operation
 * import of the model: an address the service answers, right or wrong, rather than another route
 * of the host (`$metadata`, `auth/…`, `workflow/…`).
 */
export function isServiceResource(model: Model, path: string): boolean {
  const name = LEADING_NAME.exec(path)?.[1];
  return name !== undefined && (model.entity(name) !== undefined || importsOf(model).has(name));
}

/** the bound address of `path` when it calls an operation import, else undefined */
export function importPath(model: Model, path: string): ImportPath | undefined {
  const name = LEADING_NAME.exec(path)?.[1];
  if (name === undefined || model.entity(name) !== undefined) return undefined;
  const target = importsOf(model).get(name);
  if (target === undefined) return undefined;
  const bound = `${target.entity}/${target.method}`;
  const shift = bound.length - name.length;
  return {
    path: bound + path.slice(name.length),
    asWritten: (error) =>
      error instanceof QuerySyntaxError && error.option === "path"
        ? new QuerySyntaxError("path", Math.max(0, error.position - shift), error.problem)
        : error,
  };
}
