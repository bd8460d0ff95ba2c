/**
 * Custom methods (spec 4.8) at the addresses the service answers: a Function (Read method) as
 * `GET {Set}/{Name}()` or `GET {Set}({Guid})/{Name}()` with its parameters in the query string, an
 * Action (Modify method) as `POST {Set}/{Name}` or `POST {Set}({Guid})/{Name}` with its
 * parameters as a JSON object. The unbound copies `$metadata` declares for import-only clients
 * have no address of their own and are left out.
 */

import { type EdmJsonSchemas, schemaName, schemaRef } from "../json-schema/edm-json-schema.js";
import type { EdmEntitySet, EdmOperation, EdmParameter, EdmTypeRef } from "../metadata/edm.js";
import { descriptionOf, optionalParameterOf } from "../metadata/edm-annotations.js";
import { NO_RESULT } from "../metadata/edm-operations.js";
import {
  type CommonParameter,
  commonSchemaRef,
  errorResponses,
  json,
  nextIndexHeader,
  parameterRef,
} from "./common-components.js";
import { collectionOf, keyParameter, stepParameters } from "./entity-set-paths.js";
import type { Operation, Parameter, Paths, Responses, Schema } from "./openapi-types.js";

/** `@userprompts` beside a returned value */
const withPrompts = (schema: Schema): Schema => ({ allOf: [schema, commonSchemaRef("Prompts")] });

export function operationPaths(
  operations: readonly EdmOperation[],
  entitySets: readonly EdmEntitySet[],
  schemas: EdmJsonSchemas,
): Paths {
  const setOf = new Map(entitySets.map((s) => [s.entityType, s.name]));
  const paths: Paths = {};
  for (const operation of operations) {
    const [binding, ...parameters] = operation.parameters;
    if (!operation.bound || binding === undefined) continue;
    // every entity type has its set (edm-container.ts)
    const set = setOf.get(binding.type)!;
    const read = operation.kind === "function";
    const path = `/${set}${binding.collection ? "" : "({Guid})"}/${operation.name}${read ? "()" : ""}`;
    const description = descriptionOf(operation.annotations);
    const item: Operation = {
      operationId: `${set}.${operation.name}`,
      tags: [set],
      summary: description ?? operation.name,
      description: `${read ? "Read" : "Modify"} method ${operation.name} of ${binding.collection ? `the ${set} set` : `a ${set}`}.`,
      parameters: [
        ...(read ? parameters.map((p) => queryParameter(p, schemas)) : []),
        ...resultOptions(operation.returnType, schemas).map((o) => parameterRef(o)),
      ],
      ...(!read && { requestBody: body(operation, schemas) }),
      responses: {
        ...results(operation.returnType, schemas),
        ...errorResponses({ notFound: !binding.collection, workflow: true }),
      },
    };
    paths[path] = {
      parameters: [...(binding.collection ? [] : [keyParameter]), ...stepParameters],
      [read ? "get" : "post"]: item,
    };
  }
  return paths;
}

function queryParameter(p: EdmParameter, schemas: EdmJsonSchemas): Parameter {
  const description = schemas.parameterDescription(p);
  return {
    name: p.name,
    in: "query",
    required: !optionalParameterOf(p.annotations).optional,
    ...(description !== undefined && { description }),
    schema: schemas.typeSchema(p),
  };
}

function body(operation: EdmOperation, schemas: EdmJsonSchemas): NonNullable<Operation["requestBody"]> {
  const parameters = schemas.parameters(operation);
  return {
    required: parameters?.required !== undefined,
    description: "The method's parameters.",
    content: json(parameters ?? { type: "object", properties: {}, additionalProperties: false }),
  };
}

/** the options that shape returned records: all of a read for a collection, the shape for one record */
function resultOptions(returns: EdmTypeRef | undefined, schemas: EdmJsonSchemas): CommonParameter[] {
  if (returns === undefined || !schemas.isEntityType(returns.type)) return [];
  return returns.collection ? ["filter", "select", "expand", "orderby", "compute"] : ["select", "expand", "compute"];
}

function results(returns: EdmTypeRef | undefined, schemas: EdmJsonSchemas): Responses {
  const nothing = { description: "Done, with nothing to return.", headers: nextIndexHeader };
  if (returns === undefined || returns === NO_RESULT) return { "204": nothing };
  const entity = schemas.isEntityType(returns.type);
  const schema: Schema = !entity
    ? { type: "object", properties: { value: schemas.typeSchema(returns) } }
    : returns.collection
      ? collectionOf(returns.type, false)
      : schemaRef(schemaName(returns.type));
  return {
    "200": {
      description: "The result.",
      headers: nextIndexHeader,
      content: json(withPrompts(schema)),
    },
    // a method returning a record may return none
    ...(entity && !returns.collection && { "204": { ...nothing, description: "No record." } }),
  };
}
