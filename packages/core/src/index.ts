/**
 * @bizdata/core: the entity-definition DSL, typed records, derived validation, user prompts and
 * the storage layer (tables derived from definitions, schema migration, PGlite and PostgreSQL drivers).
 */
export * from "./errors.js";
export * from "./methods/index.js";
export * from "./model/entity.js";
export * from "./model/fields.js";
export type * from "./model/hook-context.js";
export type * from "./model/hooks.js";
export * from "./model/model.js";
export * from "./prompts/prompt-collector.js";
export type * from "./prompts/prompts.js";
export * from "./storage/index.js";
export * from "./validation/index.js";
export * from "./write/index.js";
