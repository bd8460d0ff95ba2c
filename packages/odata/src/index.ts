/**
 * @bizdata/odata: the OData URL language. Parse (Chevrotain, model-free syntax tree) → bind
 * (names and rules against the model) → compile (one PostgreSQL statement) → run (response JSON).
 *
 * @example
 * const planner = new ReadPlanner(model);
 * const read = planner.plan({ path: "Product", search: url.searchParams, ieee754Compatible: false });
 * if (read.kind === "collection") body = await runCollection(session, read.prepared, { tenantId });
 */

export type * from "./batch/batch-types.js";
export { formatJsonBatchResponse } from "./batch/format-json-response.js";
export { formatMultipartBatchResponse } from "./batch/format-multipart-response.js";
export { parseJsonBatch } from "./batch/parse-json-batch.js";
export { parseMultipartBatch } from "./batch/parse-multipart-batch.js";
export type * from "./bind/apply-query.js";
export { bindApply } from "./bind/bind-apply.js";
export { bindQuery } from "./bind/bind-query.js";
export type * from "./bind/bound-expr.js";
export type * from "./bind/read-query.js";
export { compileApply } from "./compile/compile-apply.js";
export { type CompileContext, compileCollection, compileCount, compileSingle } from "./compile/compile-read.js";
export * from "./limits.js";
export {
  type PreparedRead,
  type PrepareOptions,
  prepareCollection,
  prepareCount,
  prepareSingle,
} from "./read/prepare-read.js";
export {
  keyOf,
  type PlannedRead,
  type PlannerOptions,
  type PlanRequest,
  ReadPlanner,
  resolveEntity,
} from "./read/read-planner.js";
export { type RunArgs, runCollection, runCount, runSingle } from "./read/run-read.js";
export * from "./syntax/index.js";
