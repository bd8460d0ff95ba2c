/**
 * Custom methods (spec 4.8) as operations: a Read method is a Function (GET), a Modify method an
 * Action (POST). An instance method is bound to its entity type (`SalesOrder({id})/ReorderFrom`).
 * A static method is bound to the entity's collection (`SalesOrder/GetOpenOrders()`, the address
 * the service answers) and also declared unbound with a function or action import, for clients
 * that only know imports (operation-imports.ts names them). A method the tenant's features leave
 * without a subscriber is left out: calling it would answer 403.
 */
import {
  type AnyEntity,
  isUnavailable,
  type MethodDeclaration,
  type MethodParams,
  type Model,
  type ScalarField,
} from "@bizdata/core";
import type { EdmOperation, EdmOperationImport, EdmParameter, EdmTypeRef } from "./edm.js";
import { defaultOf, scalarTypeRef } from "./edm-types.js";
import { operationImports } from "./operation-imports.js";
import type { SchemaNames } from "./schema-names.js";
import { description, optionalParameter } from "./vocabularies.js";

export interface Operations {
  readonly operations: EdmOperation[];
  readonly imports: EdmOperationImport[];
}

/**
 * A Function must return something; a Read method that returns nothing answers 204, i.e. null.
 * Exported so that a reader of the model (the OpenAPI document) can tell it from a nullable text.
 */
export const NO_RESULT: EdmTypeRef = Object.freeze({ type: "Edm.String", collection: false, nullable: true });

export function buildOperations(model: Model, names: SchemaNames, features: ReadonlySet<string>): Operations {
  const importNames = new Map(
    [...operationImports(model)].map(([importName, { entity, method }]) => [`${entity}.${method}`, importName]),
  );
  const operations: EdmOperation[] = [];
  const imports: EdmOperationImport[] = [];
  for (const entity of model.entities.values()) {
    for (const [name, declaration] of Object.entries(entity.methods)) {
      const kind = declaration.type === "read" ? "function" : "action";
      const importName = importNames.get(`${entity.name}.${name}`) ?? name;
      // names are claimed for every tenant alike, so a model error shows whatever the features
      names.claim(name, `${kind} ${name}`);
      if (declaration.isStatic) names.claim(importName, `${kind} ${importName}`);
      if (isUnavailable(model.subscribers(declaration), features)) continue;
      const params = Object.entries(declaration.params as MethodParams);
      const parameters = params.map(([p, field]) => parameter(names, entity, name, p, field));
      const returnType = returns(model, names, entity, name, declaration);
      const annotations = [description(declaration.description)];
      const operation = (bound: boolean, opName: string, binding?: EdmTypeRef): EdmOperation => ({
        kind,
        name: opName,
        bound,
        parameters: binding
          ? [{ name: bindingName(declaration), ...binding, annotations: [] }, ...parameters]
          : parameters,
        ...(returnType && { returnType }),
        annotations,
      });
      const type = names.qualified(entity.name);
      if (!declaration.isStatic) {
        operations.push(operation(true, name, { type, collection: false, nullable: false }));
        continue;
      }
      operations.push(operation(true, name, { type, collection: true, nullable: false }));
      operations.push(operation(false, importName));
      const target = declaration.returns.kind === "entity" || declaration.returns.kind === "collection";
      imports.push({
        kind,
        name: importName,
        operation: names.qualified(importName),
        ...(target && { entitySet: declaration.returns.entity }),
        includeInServiceDocument: kind === "function",
      });
    }
  }
  return { operations, imports };
}

/** the binding parameter's name: `_it`, unless the method has a parameter of that name */
function bindingName(declaration: MethodDeclaration<any, any>): string {
  let name = "_it";
  while (Object.hasOwn(declaration.params, name)) name = `_${name}`;
  return name;
}

/** required: non-nullable without default; optional otherwise (spec 4.8 parameter rules 1-2) */
function parameter(
  names: SchemaNames,
  entity: AnyEntity,
  method: string,
  name: string,
  field: ScalarField,
): EdmParameter {
  const defaultValue = defaultOf(field);
  const optional = !field.required;
  return {
    name,
    ...scalarTypeRef(field, optional && defaultValue === undefined, names, [
      `${entity.name}${method}${name[0]!.toUpperCase()}${name.slice(1)}`,
    ]),
    annotations: [
      ...(field.description === undefined ? [] : [description(field.description)]),
      ...(optional ? [optionalParameter(defaultValue === undefined ? undefined : String(defaultValue))] : []),
    ],
  };
}

function returns(
  model: Model,
  names: SchemaNames,
  entity: AnyEntity,
  method: string,
  declaration: MethodDeclaration<any, any>,
): EdmTypeRef | undefined {
  const r = declaration.returns;
  switch (r.kind) {
    case "none":
      return declaration.type === "read" ? NO_RESULT : undefined;
    case "scalar":
      return scalarTypeRef(r.type, true, names, [`${entity.name}${method}Result`]);
    case "entity":
    case "collection":
      if (model.entity(r.entity) === undefined) {
        throw new Error(`${entity.name}.${method} returns "${r.entity}", which is not an entity of the model.`);
      }
      return { type: names.qualified(r.entity), collection: r.kind === "collection", nullable: r.kind === "entity" };
  }
}
