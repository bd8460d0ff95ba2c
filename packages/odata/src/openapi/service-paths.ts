/**
 * The service's own addresses beside its entity sets (api-conventions: Batch; Discovery): the
 * service document at the root, `$metadata` and `$batch`.
 */

import type { BatchLimits } from "../limits.js";
import { errorResponses } from "./common-components.js";
import type { PathItem, Schema } from "./openapi-types.js";

export const SERVICE_TAG = "Service description";
export const BATCH_TAG = "Batch requests";

const batchRequest = (limits: BatchLimits): Schema => ({
  type: "object",
  required: ["requests"],
  properties: {
    requests: {
      type: "array",
      maxItems: limits.maxBatchParts,
      items: {
        type: "object",
        required: ["id", "method", "url"],
        properties: {
          id: { type: "string" },
          method: { type: "string", enum: ["GET", "POST", "PATCH", "DELETE"] },
          url: { type: "string", description: "Relative to the service root, e.g. `Product?$top=1`." },
          headers: { type: "object", additionalProperties: { type: "string" } },
          body: { description: "The request's JSON body." },
          atomicityGroup: {
            type: "string",
            description: `Requests of one group (a changeset, at most ${limits.maxChangesetWrites} writes) all succeed or none does.`,
          },
          dependsOn: { type: "array", items: { type: "string" } },
        },
      },
    },
  },
});

const batchResponse: Schema = {
  type: "object",
  required: ["responses"],
  properties: {
    responses: {
      type: "array",
      items: {
        type: "object",
        required: ["id", "status"],
        properties: {
          id: { type: "string" },
          status: { type: "integer" },
          headers: { type: "object", additionalProperties: { type: "string" } },
          body: { description: "The response's JSON body." },
        },
      },
    },
  },
};

const multipart = {
  schema: { type: "string", description: "OData 4.0 multipart/mixed, with changesets." },
} satisfies { readonly schema: Schema };

export const servicePaths = (limits: BatchLimits): Record<string, PathItem> => ({
  "/": {
    get: {
      operationId: "serviceDocument",
      tags: [SERVICE_TAG],
      summary: "The service document: the entity sets and function imports",
      responses: {
        "200": {
          description: "OData JSON service document.",
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: {
                  "@odata.context": { type: "string" },
                  value: {
                    type: "array",
                    items: {
                      type: "object",
                      properties: { name: { type: "string" }, kind: { type: "string" }, url: { type: "string" } },
                    },
                  },
                },
              },
            },
          },
        },
        ...errorResponses(),
      },
    },
  },
  "/$metadata": {
    get: {
      operationId: "metadata",
      tags: [SERVICE_TAG],
      summary: "The entity data model as CSDL, as the caller's tenant sees it",
      parameters: [
        {
          name: "$format",
          in: "query",
          description: "`json` for CSDL JSON; CSDL XML without it (or by `Accept`).",
          schema: { type: "string", enum: ["xml", "json"] },
        },
      ],
      responses: {
        "200": {
          description: "CSDL XML or CSDL JSON.",
          content: {
            "application/xml": { schema: { type: "string" } },
            "application/json": { schema: { type: "object" } },
          },
        },
        ...errorResponses(),
      },
    },
  },
  "/$batch": {
    post: {
      operationId: "batch",
      tags: [BATCH_TAG],
      summary: "Run several requests in one",
      description:
        "Each request runs as it would alone (authentication, permissions, business logic); requests of one atomicity group (changeset) are one transaction. Not inside a workflow.",
      requestBody: {
        required: true,
        content: { "application/json": { schema: batchRequest(limits) }, "multipart/mixed": multipart },
      },
      responses: {
        "200": {
          description: "One response per request.",
          content: { "application/json": { schema: batchResponse }, "multipart/mixed": multipart },
        },
        ...errorResponses(),
      },
    },
  },
});
