/**
 * Every size a client controls in a query, capped in one place (style: "bound what the client
 * controls"). Exceeding any of them is a 400, never a slow query.
 */
export interface QueryLimits {
  /** characters in the whole query string */
  readonly maxQueryLength: number;
  /** nesting of parentheses / operators in one expression */
  readonly maxExpressionDepth: number;
  /** items in one `in (…)` list */
  readonly maxInListLength: number;
  /** levels of nested `$expand` */
  readonly maxExpandDepth: number;
  /** `$expand` items at one level */
  readonly maxExpandWidth: number;
  /** largest `$top` a client may ask for, and the server page size */
  readonly maxPageSize: number;
  /** words and phrases in one `$search` (each is a full-text match against every record read) */
  readonly maxSearchTerms: number;
  /**
   * Bytes of one read's answer: `$top` bounds the records, the collections' bounds their items,
   * but a thousand orders with a thousand lines each is still a gigabyte to build and hold.
   */
  readonly maxAnswerBytes: number;
}

export const defaultQueryLimits: QueryLimits = {
  maxQueryLength: 8192,
  maxExpressionDepth: 32,
  maxInListLength: 500,
  maxExpandDepth: 4,
  maxExpandWidth: 16,
  maxPageSize: 1000,
  maxSearchTerms: 100,
  maxAnswerBytes: 16 * 1024 * 1024,
};

/**
 * Sizes a client controls in `POST /api/$batch` (spec 4.5 and 8; api-conventions "Errors":
 * over either → 400 `BatchTooLarge`). A larger import is split into several batches.
 */
export interface BatchLimits {
  /** requests in one batch, counting those inside changesets */
  readonly maxBatchParts: number;
  /** write requests (POST, PATCH, DELETE) in one changeset / atomicity group */
  readonly maxChangesetWrites: number;
  /** bytes of the answers of all its parts together: the batch as a whole, not only each part */
  readonly maxAnswerBytes: number;
}

export const defaultBatchLimits: BatchLimits = {
  maxBatchParts: 64,
  maxChangesetWrites: 64,
  maxAnswerBytes: 32 * 1024 * 1024,
};

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
