/**
 * The service as an OpenAPI 3.1 document, generated from the entity data model that `$metadata`
 * renders (build-edm.ts), so the two never disagree: a path per entity set (the collection with
 * the query options, create, `$count`, the record by key), every method the model offers at the
 * address the service answers, `$batch`, the workflow endpoints, sign-in and refresh; a schema
 * per model type with the facets of `$metadata`; the bearer scheme and the configured OAuth2
 * issuers.
 *
 * @example
 * const doc = openApiDocument(model, { serverUrl: "/api" });
 * return Response.json(doc);
 */
import type { Model } from "@bizdata/core";
import { EdmJsonSchemas, schemaName, schemaRef } from "../json-schema/edm-json-schema.js";
import { type BatchLimits, defaultBatchLimits, defaultQueryLimits } from "../limits.js";
import { buildEdm } from "../metadata/build-edm.js";
import type { EdmEntitySet } from "../metadata/edm.js";
import { descriptionOf } from "../metadata/edm-annotations.js";
import { namedFeatures } from "../metadata/metadata-documents.js";
import { AUTH_TAG, authPaths } from "./auth-paths.js";
import { commonHeaders, commonParameters, commonResponses, commonSchemas, queryOptions } from "./common-components.js";
import { entitySetPaths } from "./entity-set-paths.js";
import { OPENAPI_SCHEMA_STYLE } from "./openapi-schema-style.js";
import { HTTP_METHODS, type OpenApiDocument, type PathItem, type Paths } from "./openapi-types.js";
import { operationPaths } from "./operation-paths.js";
import { type OAuthSettings, securityRequirement, securitySchemes } from "./security-schemes.js";
import { BATCH_TAG, SERVICE_TAG, servicePaths } from "./service-paths.js";
import { WORKFLOW_TAG, workflowPaths } from "./workflow-paths.js";

export interface OpenApiOptions {
  /** where the service root is, absolute or relative to the document (`/api`): the document's server */
  readonly serverUrl: string;
  /** the tenant's features; default every feature the model names, i.e. every method the model offers */
  readonly features?: ReadonlySet<string>;
  /** `info.title`; default `{namespace} API` */
  readonly title?: string;
  /** `info.version`, the version of the API (not of OpenAPI); default `1` */
  readonly version?: string;
  /** the largest `$top` (the server page size); default 1000 */
  readonly maxPageSize?: number;
  readonly batchLimits?: BatchLimits;
  /** trusted third-party issuers and the scopes their tokens carry */
  readonly oauth?: OAuthSettings;
}

export function openApiDocument(model: Model, options: OpenApiOptions): OpenApiDocument {
  const features = options.features ?? new Set(namedFeatures(model));
  const edm = buildEdm(model, { features });
  const { schema } = edm;
  const schemas = new EdmJsonSchemas(schema, OPENAPI_SCHEMA_STYLE);
  const types = new Map(schema.types.map((t) => [`${schema.namespace}.${t.name}`, t]));
  const { entitySets } = schema.container;
  const describe = (set: EdmEntitySet) => {
    const type = types.get(set.entityType);
    return type?.kind === "entityType" ? descriptionOf(type.annotations) : undefined;
  };

  const paths: Paths = {
    ...servicePaths(options.batchLimits ?? defaultBatchLimits),
  };
  const body = (set: EdmEntitySet) => (shape: "create" | "update") => {
    const type = types.get(set.entityType);
    return schemas.isItem(set.entityType) && type?.kind === "entityType"
      ? schemas.write(type, shape)
      : schemaRef(schemaName(set.entityType, shape));
  };
  for (const set of entitySets) Object.assign(paths, entitySetPaths(set, describe(set), body(set)));
  Object.assign(paths, operationPaths(schema.operations, entitySets, schemas), workflowPaths, authPaths);

  // an operation says which token it needs unless it needs none (sign-in): a read or a write scope
  const secured = (item: PathItem): PathItem => {
    const operations = HTTP_METHODS.flatMap((method) => {
      const operation = item[method];
      if (operation === undefined) return [];
      const access = method === "get" ? "read" : "write";
      return [[method, { ...operation, security: operation.security ?? securityRequirement(options.oauth, access) }]];
    });
    return { ...item, ...Object.fromEntries(operations) };
  };

  const tags: OpenApiDocument["tags"][number][] = [
    ...entitySets.map((set) => {
      const description = describe(set);
      return { name: set.name, ...(description !== undefined && { description }) };
    }),
    { name: WORKFLOW_TAG, description: "Stage changes over several requests and store them together." },
    { name: BATCH_TAG },
    { name: AUTH_TAG, description: "Get the access token every other operation needs." },
    { name: SERVICE_TAG },
  ];

  return {
    openapi: "3.1.0",
    info: {
      title: options.title ?? `${schema.namespace} API`,
      version: options.version ?? "1",
      description:
        'An OData 4.01 service: query options on every entity set, JSON bodies, errors as `{"error":{"code","message","target","details"}}`. Sign in (`POST /auth/signin`) and send the access token as `Authorization: Bearer …`.',
    },
    servers: [{ url: options.serverUrl }],
    tags,
    paths: Object.fromEntries(Object.entries(paths).map(([path, item]) => [path, secured(item)])),
    components: {
      schemas: { ...commonSchemas, ...schemas.components() },
      parameters: { ...queryOptions(options.maxPageSize ?? defaultQueryLimits.maxPageSize), ...commonParameters },
      responses: commonResponses,
      headers: commonHeaders,
      securitySchemes: securitySchemes(options.oauth),
    },
  };
}
