/**
 * The type a method's scalar result has in `$metadata`, for the context URL of its answer
 * (`$metadata#Edm.Decimal`, OData Protocol 4.01 §10.14): read from the model's own EDM, so an
 * enum result names the enum type `$metadata` declares. Built once per model, with every feature.
 */
import type { Model } from "@bizdata/core";
import { buildEdm } from "./build-edm.js";
import { namedFeatures } from "./metadata-documents.js";

const results = new WeakMap<Model, ReadonlyMap<string, string>>();

/** the qualified type of `entity`'s method `method`'s result, undefined for a method without one */
export function resultType(model: Model, entity: string, method: string): string | undefined {
  let byMethod = results.get(model);
  if (byMethod === undefined) {
    const { schema } = buildEdm(model, { features: new Set(namedFeatures(model)) });
    const types = new Map<string, string>();
    for (const operation of schema.operations) {
      const binding = operation.bound ? operation.parameters[0]?.type : undefined;
      if (binding !== undefined && operation.returnType !== undefined)
        types.set(`${binding}/${operation.name}`, operation.returnType.type);
    }
    byMethod = types;
    results.set(model, byMethod);
  }
  return byMethod.get(`${model.namespace}.${entity}/${method}`);
}
