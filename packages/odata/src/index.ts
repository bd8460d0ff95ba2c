/**
 * @bizdata/odata: the OData URL language and the service runtime. Parse (Chevrotain, model-free
 * syntax tree) → bind (names and rules against the model) → compile (one PostgreSQL statement) →
 * run (response JSON); the service (`createODataService`) answers entity reads, writes and method
 * calls as plain results, `runBatch` runs a `$batch` as calls of it, and
 * `readJsonBody` reads request bodies with exact numbers. A host only routes, authenticates and
 * maps errors to HTTP. And the service's description from the same model: the service document
 * and `$metadata`, the OpenAPI 3.1 document built from the same entity data model, and the JSON
 * Schemas of its types (`EdmJsonSchemas`) that document and the MCP tools declare.
 *
 * @example
 * const service = createODataService({ db, model });
 * const result = await service.handle(odataRequestOf(request, { basePath: service.basePath, tenantId, bodyLimits }));
 *
 * @example
 * const planner = new ReadPlanner(model);
 * const read = planner.plan({ path: "Product", search: url.searchParams, ieee754Compatible: false });
 * if (read.kind === "collection") body = await runCollection(session, read.prepared, { tenantId });
 */

export type * from "./batch/batch-types.js";
export { inChangeset } from "./batch/changeset-unit.js";
export { formatJsonBatchResponse } from "./batch/format-json-response.js";
export { formatMultipartBatchResponse } from "./batch/format-multipart-response.js";
export { parseJsonBatch } from "./batch/parse-json-batch.js";
export { parseMultipartBatch } from "./batch/parse-multipart-batch.js";
export { type BatchOptions, runBatch } from "./batch/run-batch.js";
export type * from "./bind/apply-query.js";
export { bindApply } from "./bind/bind-apply.js";
export { bindQuery } from "./bind/bind-query.js";
export {
  type BoundPath,
  bindResourcePath,
  keyOf,
  type MethodPath,
  type NavigationSource,
  resolveEntity,
} from "./bind/bind-resource-path.js";
export type * from "./bind/bound-expr.js";
export type * from "./bind/read-query.js";
export { compileApply } from "./compile/compile-apply.js";
export { type CompileContext, compileCollection, compileCount, compileSingle } from "./compile/compile-read.js";
export type { MetadataLevel } from "./compile/control-info.js";
export { type EntityTags, etagOf, parseEntityTags } from "./conditional/entity-tags.js";
export { parseJson } from "./json-body/parse-json.js";
export { isIeee754Compatible, readJsonBody } from "./json-body/request-json.js";
export {
  type EdmJsonSchemaStyle,
  EdmJsonSchemas,
  type SchemaNotes,
  type Shape,
  type WriteShape,
} from "./json-schema/edm-json-schema.js";
export type { JsonSchema } from "./json-schema/json-schema.js";
export * from "./limits.js";
export { buildEdm, type EdmOptions } from "./metadata/build-edm.js";
export { renderCsdlJson } from "./metadata/csdl-json.js";
export { renderCsdlXml } from "./metadata/csdl-xml.js";
export type * from "./metadata/edm.js";
export {
  alternateKeysOf,
  descriptionOf,
  isComputed,
  isImmutable,
  optionalParameterOf,
  restrictedPaths,
} from "./metadata/edm-annotations.js";
export { type MetadataRequest, metadataDocument, serviceDocumentText } from "./metadata/metadata-documents.js";
export {
  type MetadataFormat,
  metadataFormat,
  metadataVersion,
  odataVersion,
} from "./metadata/metadata-negotiation.js";
export { type DescriptionRequest, describeService, describes } from "./metadata/service-description.js";
export { type ServiceDocument, serviceDocument } from "./metadata/service-document.js";
export { TOKEN_PATHS } from "./openapi/auth-paths.js";
export { type OpenApiOptions, openApiDocument } from "./openapi/openapi-document.js";
export { BEARER, type OAuthIssuer, type OAuthSettings } from "./openapi/security-schemes.js";
export {
  type PreparedRead,
  type PrepareOptions,
  prepareCollection,
  prepareCount,
  prepareSingle,
} from "./read/prepare-read.js";
export {
  type PlannedRead,
  type PlannerOptions,
  type PlanRequest,
  ReadPlanner,
  resolveResource,
} from "./read/read-planner.js";
export {
  type RunArgs,
  runCollection,
  runContained,
  runContainedCount,
  runCount,
  runRelated,
  runSingle,
  type SingleRecord,
} from "./read/run-read.js";
export { type ErrorResponse, errorResponse, errorResult } from "./service/error-response.js";
export { methodEnvironment } from "./service/method-call.js";
export {
  type Access,
  formatOptionOf,
  hasBody,
  type ODataRequest,
  odataRequestOf,
  type ReturnPreference,
  resourcePath,
  returnPreferenceOf,
  type ServiceRequestOptions,
  serviceRequest,
} from "./service/odata-request.js";
export {
  jsonResult,
  noContent,
  normalizeBasePath,
  type ODataResult,
  type PayloadControl,
  payloadResult,
} from "./service/odata-result.js";
export { createODataService, type ODataService, type ODataServiceOptions } from "./service/odata-service.js";
export { jsonContentType, type ResponseFormat, responseFormat } from "./service/response-format.js";
export type { ServiceContext } from "./service/service-context.js";
export { tenantInfo } from "./service/tenant-info.js";
export * from "./syntax/index.js";
