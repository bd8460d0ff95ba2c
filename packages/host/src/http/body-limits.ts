/** Bounds on a request body, checked before any of it reaches validation or business logic. */
export interface BodyLimits {
  /** Largest accepted body in bytes; more is a 413, also for chunked bodies. */
  readonly maxBytes: number;
  /** Deepest accepted nesting of JSON arrays and objects; deeper is a 400. */
  readonly maxDepth: number;
}

/**
 * 10 MiB is the body limit api-conventions sets. 32 levels is far above what a deep write needs
 * (entity → collection → line → complex value is four) while keeping every later recursive walk
 * over the body (validation, deep-write planning) shallow enough that it cannot exhaust the stack.
 */
export const defaultBodyLimits: BodyLimits = Object.freeze({ maxBytes: 10 * 1024 * 1024, maxDepth: 32 });
