/**
 * @bizdata/odata: the OData URL language. Parse (Chevrotain, model-free syntax tree) → bind
 * (names and rules against the model) → compile (one PostgreSQL statement) → run (response JSON).
 *
 * @example
 * const options = parseQueryOptions(new URL(url).searchParams);
 * const query = bindQuery(model.entity("Product")!, options);
 * const body = await readCollection(session, query, { tenantId, pageSize: 1000, ieee754Compatible: false, nextLink });
 */

export { bindQuery } from "./bind/bind-query.js";
export type * from "./bind/bound-expr.js";
export type * from "./bind/read-query.js";
export { type CompileContext, compileCollection, compileCount, compileSingle } from "./compile/compile-read.js";
export * from "./limits.js";
export { type CollectionContext, readCollection, readCount, readSingle } from "./read/run-read.js";
export * from "./syntax/index.js";
