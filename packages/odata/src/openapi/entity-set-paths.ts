/**
 * The paths of one entity set (spec 4.2, api-conventions: Reads and Writes): the collection with
 * the system query options and create, `$count`, and the record by key with read, update and
 * delete. Every one of them may be a workflow step.
 */

import { schemaName, schemaRef } from "../json-schema/edm-json-schema.js";
import type { EdmEntitySet } from "../metadata/edm.js";
import { commonSchemaRef, errorResponses, json, nextIndexHeader, parameterRef } from "./common-components.js";
import type { Parameter, Paths, Response, Schema } from "./openapi-types.js";

const listOptions = ["filter", "select", "expand", "orderby", "top", "skip", "count", "compute", "apply"] as const;

/** the options that shape the record a read or write answers with */
const shaping = [parameterRef("select"), parameterRef("expand"), parameterRef("compute")];

/** the parameters of every path that may be a workflow step */
export const stepParameters = [parameterRef("workflowId"), parameterRef("workflowIndex")];

/** the record's key in the path: `Product({Guid})` */
export const keyParameter: Parameter = {
  name: "Guid",
  in: "path",
  required: true,
  description: "The record's Guid.",
  schema: { type: "string", format: "uuid" },
};

/** a record as a write answers it: shaped by `$select`, with what business logic reported */
const written = (type: string): Schema => ({
  allOf: [schemaRef(schemaName(type)), commonSchemaRef("Prompts")],
});

/** `{"value":[…]}`, with `@odata.count` when asked and `@odata.nextLink` when the page was cut */
export const collectionOf = (type: string, paged: boolean): Schema => ({
  type: "object",
  required: ["value"],
  properties: {
    ...(paged && {
      "@odata.count": { type: "integer", description: "With `$count=true`: the matches before `$top`/`$skip`." },
      "@odata.nextLink": { type: "string", description: "The next page, when the server cut this one." },
    }),
    value: { type: "array", items: schemaRef(schemaName(type)) },
  },
});

const minimal = (headers: Response["headers"] = {}): Response => ({
  description: "Done; `Prefer: return=minimal` leaves the body out.",
  headers: { ...headers, ...nextIndexHeader },
});

/**
 * The paths of `set`, whose create and update bodies `body` gives (an owned item's names its
 * owner, which the item's component leaves to the owner that holds it inline)
 */
export function entitySetPaths(
  set: EdmEntitySet,
  description: string | undefined,
  body: (shape: "create" | "update") => Schema,
): Paths {
  const { name, entityType: type } = set;
  const tags = [name];
  const location = { Location: { description: "The new record's address.", schema: { type: "string" } } } as const;
  const entityId = {
    "OData-EntityId": { description: "The new record's id, its address.", schema: { type: "string" } },
  };
  return {
    [`/${name}`]: {
      parameters: stepParameters,
      get: {
        operationId: `${name}_list`,
        tags,
        summary: `Read ${name} records`,
        ...(description !== undefined && { description }),
        parameters: listOptions.map((option) => parameterRef(option)),
        responses: {
          "200": {
            description: `The ${name} records that match, one page of them.`,
            headers: nextIndexHeader,
            content: json(collectionOf(type, true)),
          },
          ...errorResponses({ workflow: true }),
        },
      },
      post: {
        operationId: `${name}_create`,
        tags,
        summary: `Create a ${name}`,
        parameters: [...shaping, parameterRef("prefer")],
        requestBody: {
          required: true,
          description: "Owned collections are written inline; a reference is the target's Guid or natural key.",
          content: json(body("create")),
        },
        responses: {
          "201": {
            description:
              "Created: the record shaped by `$select` (its Guid alone without it, every property with `Prefer: return=representation`).",
            headers: { ...location, ...nextIndexHeader },
            content: json(written(type)),
          },
          "204": minimal({ ...location, ...entityId }),
          ...errorResponses({ workflow: true }),
        },
      },
    },
    [`/${name}/$count`]: {
      parameters: stepParameters,
      get: {
        operationId: `${name}_count`,
        tags,
        summary: `Count ${name} records`,
        parameters: [parameterRef("filter")],
        responses: {
          "200": {
            description: "How many records match.",
            headers: nextIndexHeader,
            content: { "text/plain": { schema: { type: "integer", minimum: 0 } } },
          },
          ...errorResponses({ workflow: true }),
        },
      },
    },
    [`/${name}({Guid})`]: {
      parameters: [keyParameter, ...stepParameters],
      get: {
        operationId: `${name}_get`,
        tags,
        summary: `Read a ${name}`,
        parameters: shaping,
        responses: {
          "200": { description: `The ${name}.`, headers: nextIndexHeader, content: json(schemaRef(schemaName(type))) },
          ...errorResponses({ notFound: true, workflow: true }),
        },
      },
      patch: {
        operationId: `${name}_update`,
        tags,
        summary: `Update a ${name}`,
        parameters: [...shaping, parameterRef("prefer")],
        requestBody: {
          required: true,
          description:
            "Only the properties to change; complex values merge member by member, a collection given is the new list of items (items with a known Guid are updated).",
          content: json(body("update")),
        },
        responses: {
          "200": {
            description: "Updated: the record shaped by `$select`.",
            headers: nextIndexHeader,
            content: json(written(type)),
          },
          "204": minimal(),
          ...errorResponses({ notFound: true, workflow: true }),
        },
      },
      delete: {
        operationId: `${name}_delete`,
        tags,
        summary: `Delete a ${name}`,
        description:
          "Its owned collection items go with it; a record other records still refer to cannot go (400 RecordInUse).",
        responses: {
          "204": { description: "Deleted.", headers: nextIndexHeader },
          ...errorResponses({ notFound: true, workflow: true }),
        },
      },
    },
  };
}
