/**
 * Turns a request URL into a prepared read and caches it by URL shape, so a repeated query costs
 * no parse, bind or compile: only the statement's run (architecture: cache compiled statements
 * per query shape). The record key and the tenant are parameters, so `Product(<any guid>)` with
 * the same options is one cache entry for every tenant.
 */
import { type AnyEntity, isGuid, type Model, notFound, ServiceError } from "@bizdata/core";
import type { ApplyQuery } from "../bind/apply-query.js";
import { bindApply } from "../bind/bind-apply.js";
import { bindQuery } from "../bind/bind-query.js";
import type { ReadQuery } from "../bind/read-query.js";
import type { MetadataLevel } from "../compile/control-info.js";
import { defaultQueryLimits, type QueryLimits } from "../limits.js";
import type { ResourcePath } from "../syntax/ast.js";
import { parseQueryOptions } from "../syntax/parse-query-options.js";
import { parseResourcePath } from "../syntax/parse-resource-path.js";
import { applyContext, readContext } from "./context-url.js";
import { type PreparedRead, prepareCollection, prepareCount, prepareSingle } from "./prepare-read.js";

export type PlannedRead = (
  | { readonly kind: "collection" | "count"; readonly entity: AnyEntity; readonly prepared: PreparedRead }
  | { readonly kind: "entity"; readonly entity: AnyEntity; readonly key: string; readonly prepared: PreparedRead }
) & {
  /** every entity the read returns records of (the entity and those reached by `$expand`), for permissions */
  readonly reads: readonly string[];
  /** the context URL's fragment, what follows `$metadata#` (context-url.ts) */
  readonly context: string;
};

/** the entities whose records a read returns: its own and every expanded one */
function readEntities(query: ReadQuery | ApplyQuery): string[] {
  const names = new Set<string>([query.entity.name]);
  const walk = (q: ReadQuery) => {
    for (const e of q.expand) {
      names.add(e.query.entity.name);
      walk(e.query);
    }
  };
  if (!("aggregates" in query)) walk(query);
  return [...names];
}

export interface PlannerOptions {
  readonly limits?: QueryLimits;
  /** compiled statements kept (default 1000, 0 for none); the oldest is dropped first */
  readonly cacheSize?: number;
}

export interface PlanRequest {
  /** the resource path after `/api/`, decoded: `Product`, `Product(…)`, `Product/$count` */
  readonly path: string;
  readonly search: URLSearchParams;
  readonly ieee754Compatible: boolean;
  /** inside a workflow: the read sees its staged state */
  readonly staged?: boolean;
  /** false for one-off shapes (e.g. a method's result restricted to its Guids), kept out of the cache */
  readonly cache?: boolean;
  /**
   * Values of parameter aliases from server code (`@name` in `$filter` without `@name=…` in the
   * URL), typed against what they are compared with and sent as statement parameters. A read
   * with them is not cached: its statement holds their values.
   */
  readonly aliases?: ReadonlyMap<string, unknown>;
  /** false: every matching record, no server page (what server code reads: a method's query and its result) */
  readonly paged?: boolean;
  /** only the records whose Guids are given at run (RunArgs.keys): a method's collection result */
  readonly keys?: boolean;
  /** the control information entity objects carry (control-info.ts); default none */
  readonly metadata?: MetadataLevel;
}

const KEYED = /^([A-Za-z_][A-Za-z0-9_]*)\(([^()]*)\)$/;

export function resolveEntity(model: Model, name: string): AnyEntity {
  const entity = model.entity(name);
  if (entity === undefined) {
    const suggestion = [...model.entities.keys()].find((k) => k.toLowerCase() === name.toLowerCase());
    throw notFound(
      `There is no entity set "${name}"${suggestion ? `; names are case sensitive: did you mean "${suggestion}"?` : "."}`,
      name,
    );
  }
  return entity;
}

export function keyOf(key: string): string {
  if (!isGuid(key)) throw new ServiceError(400, "InvalidKey", `The key "${key}" is not a Guid.`, "path");
  return key.toLowerCase();
}

export class ReadPlanner {
  private readonly cache = new Map<string, Omit<PlannedRead, "key">>();
  private readonly limits: QueryLimits;
  private readonly cacheSize: number;

  constructor(
    private readonly model: Model,
    options: PlannerOptions = {},
  ) {
    this.limits = options.limits ?? defaultQueryLimits;
    this.cacheSize = options.cacheSize ?? 1000;
  }

  /**
   * A read for the request, from the cache when its shape was seen before. Method paths are not
   * reads; they come back as their parsed path for the caller to dispatch.
   */
  plan(request: PlanRequest): PlannedRead | Extract<ResourcePath, { kind: "method" }> {
    // `Entity(<guid>)` shares one entry whatever the Guid
    const keyed = KEYED.exec(request.path);
    const key = keyed && isGuid(keyed[2]) ? keyed[2]!.toLowerCase() : undefined;
    const shape = `${request.ieee754Compatible ? 1 : 0}${request.metadata ?? "none"}${request.staged ? "s" : ""}${request.paged === false ? "u" : ""}${request.keys ? "k" : ""}|${key ? `${keyed![1]}()` : request.path}|${request.search}`;
    const cacheable = request.cache !== false && request.aliases === undefined;
    const cached = cacheable ? this.cache.get(shape) : undefined;
    if (cached !== undefined && (cached.kind !== "entity" || key !== undefined)) {
      return cached.kind === "entity" ? { ...cached, kind: "entity", key: key! } : (cached as PlannedRead);
    }
    const planned = this.compile(request);
    if (planned.kind === "method") return planned;
    // `cacheSize: 0` keeps nothing: every request is parsed, bound and compiled
    if (cacheable && this.cacheSize > 0 && (planned.kind !== "entity" || key !== undefined)) {
      if (this.cache.size >= this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(shape, planned);
    }
    return planned;
  }

  private compile(request: PlanRequest): PlannedRead | Extract<ResourcePath, { kind: "method" }> {
    const path = parseResourcePath(request.path);
    if (path.kind === "method") return path;
    const entity = resolveEntity(this.model, path.entity);
    const options = parseQueryOptions(request.search, this.limits);
    const bindOptions = { limits: this.limits, ...(request.aliases && { aliases: request.aliases }) };
    const prepare = {
      ...(request.paged !== false && { pageSize: this.limits.maxPageSize }),
      ieee754Compatible: request.ieee754Compatible,
      ...(request.staged && { staged: true }),
      ...(request.keys && { keys: true }),
      metadata: request.metadata ?? "none",
      namespace: this.model.namespace,
    };
    if (path.kind === "collection") {
      const query =
        options.apply !== undefined
          ? bindApply(this.model, entity, options, bindOptions)
          : bindQuery(this.model, entity, options, bindOptions);
      const context = "aggregates" in query ? applyContext(this.model, query) : readContext(this.model, query, false);
      const prepared = prepareCollection(query, prepare);
      return { kind: "collection", entity, prepared, reads: readEntities(query), context };
    }
    const query = bindQuery(this.model, entity, options, bindOptions);
    const reads = readEntities(query);
    if (path.kind === "count") {
      return { kind: "count", entity, prepared: prepareCount(query, prepare), reads, context: "Edm.Int64" };
    }
    const context = readContext(this.model, query, true);
    return { kind: "entity", entity, key: keyOf(path.key), prepared: prepareSingle(query, prepare), reads, context };
  }
}
