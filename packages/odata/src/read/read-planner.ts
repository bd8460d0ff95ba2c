/**
 * Turns a request URL into a prepared read and caches it by URL shape, so a repeated query costs
 * no parse, bind or compile: only the statement's run (architecture: cache compiled statements
 * per query shape). The record keys and the tenant are parameters, so `Product(<any guid>)` with
 * the same options is one cache entry for every tenant, and so is `SalesOrder(…)/Details(…)`.
 */
import { type AnyEntity, BoundedMap, badRequest, type Model, type RecordStore } from "@bizdata/core";
import type { ApplyQuery } from "../bind/apply-query.js";
import { bindApply } from "../bind/bind-apply.js";
import { bindQuery } from "../bind/bind-query.js";
import {
  type BoundPath,
  bindResourcePath,
  type MethodPath,
  type NavigationSource,
} from "../bind/bind-resource-path.js";
import type { ReadQuery } from "../bind/read-query.js";
import type { MetadataLevel } from "../compile/control-info.js";
import { defaultQueryLimits, type QueryLimits } from "../limits.js";
import { parseQueryOptions } from "../syntax/parse-query-options.js";
import { parseResourcePath } from "../syntax/parse-resource-path.js";
import { applyContext, readContext } from "./context-url.js";
import { type OwnerCheck, ownerReads, planOwnerChecks } from "./owner-checks.js";
import {
  type PreparedPage,
  type PreparedRead,
  prepareCollection,
  prepareComplex,
  prepareContained,
  prepareContainedCount,
  prepareCount,
  prepareRelated,
  prepareSingle,
} from "./prepare-read.js";

export type PlannedRead =
  /** `key` set: the items of a collection owned by the record with that key (a navigation) */
  (
    | {
        readonly kind: "collection";
        readonly entity: AnyEntity;
        readonly key?: string;
        readonly prepared: PreparedPage;
      }
    | { readonly kind: "count"; readonly entity: AnyEntity; readonly key?: string; readonly prepared: PreparedRead }
    | {
        readonly kind: "entity";
        readonly prepared: PreparedRead;
        readonly entity: AnyEntity;
        /** the record's key, or that of the record the navigation starts at */
        readonly key: string;
        /** reached through references from the keyed record, which may lead nowhere */
        readonly related: boolean;
      }
    /** a complex value of the record with `key` (or reached from it) */
    | { readonly kind: "complex"; readonly entity: AnyEntity; readonly key: string; readonly prepared: PreparedRead }
  ) & {
    /** every entity the read returns records of (the entity and those reached by `$expand`), for permissions */
    readonly reads: readonly string[];
    /** the entity set a navigation starts at, for messages (`SalesOrder` of `SalesOrder(…)/Details`) */
    readonly root: AnyEntity;
    /** the context URL's fragment, what follows `$metadata#` (context-url.ts) */
    readonly context: string;
    /** an owned item named under its owner: what to check before the read (owner-checks.ts) */
    readonly owners?: readonly OwnerCheck[];
  };

/** the entities whose records a read returns: its own and every expanded one */
function readEntities(query: ReadQuery | ApplyQuery, source?: NavigationSource): string[] {
  // a navigation also tells of the records it passes through
  const names = new Set<string>(source ? [source.root.name, ...source.via.map((v) => v.target.name)] : []);
  names.add(query.entity.name);
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
  /**
   * the resource path after the service root as the URL has it (percent-encoded): `Product`,
   * `Product(…)`, `Product/$count`, `SalesOrder(…)/Details`
   */
  readonly path: string;
  readonly search: URLSearchParams;
  readonly ieee754Compatible: boolean;
  /**
   * What the read reads: the unit of work's store (`session.store`), a workflow's staged state
   * when it has a view; the base tables when left out
   */
  readonly store?: RecordStore | undefined;
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

/** a keyed segment, `Entity(<guid>)` or `Entity(Guid=<guid>)` (an owned item's too): one shape whatever the Guid */
const KEYED =
  /(^|\/)([A-Za-z_][A-Za-z0-9_]*)\((?:Guid=)?([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})\)(?=\/|$)/g;

/** a read's keys in path order: its owners' (owner-checks.ts), then that of the record it starts at */
const keysOf = (read: PlannedRead): string[] => [
  ...(read.owners ?? []).map((o) => o.key),
  ...(read.key === undefined ? [] : [read.key]),
];

/** a read of one shape for the keys of another path of that shape: each owner holds the next key's record */
function withKeys(read: PlannedRead, keys: readonly string[]): PlannedRead {
  if (keys.length === 0) return read;
  const owners = read.owners?.map((o, i) => ({ ...o, key: keys[i]!, item: keys[i + 1]! }));
  return { ...read, key: keys.at(-1)!, ...(owners && { owners }) } as PlannedRead;
}

/**
 * What a resource path addresses, against the model: parse and bind, uncached (writes and
 * method calls; reads go through `ReadPlanner.plan`).
 *
 * @example resolveResource(model, "Journal(6f1c…)/bizdata.Post") // { kind: "method", … }
 */
export const resolveResource = (model: Model, path: string, limits: QueryLimits = defaultQueryLimits): BoundPath =>
  bindResourcePath(model, parseResourcePath(path, limits));

export class ReadPlanner {
  private readonly cache: BoundedMap<string, PlannedRead>;
  private readonly paths: BoundedMap<string, BoundPath>;
  readonly limits: QueryLimits;

  constructor(
    private readonly model: Model,
    options: PlannerOptions = {},
  ) {
    this.limits = options.limits ?? defaultQueryLimits;
    // `cacheSize: 0` keeps nothing: every request is parsed, bound and compiled
    this.cache = new BoundedMap(options.cacheSize ?? 1000);
    this.paths = new BoundedMap(options.cacheSize ?? 1000);
  }

  /**
   * The resource `path` names (resolveResource), from a cache when it has no key: an entity set or
   * a method bound to one, as every create of a `$batch` names the same set. A keyed path is bound
   * each time (its keys would fill the cache).
   */
  resolve(path: string): BoundPath {
    if (path.includes("(")) return resolveResource(this.model, path, this.limits);
    return this.paths.getOrMake(path, () => resolveResource(this.model, path, this.limits));
  }

  /**
   * A read for the request, from the cache when its shape was seen before. Method paths are not
   * reads; they come back bound for the caller to dispatch.
   */
  plan(request: PlanRequest): PlannedRead | MethodPath {
    // `Entity(<guid>)…` shares one entry whatever the Guids
    const keys: string[] = [];
    const path = request.path.replace(KEYED, (_, start: string, name: string, key: string) => {
      keys.push(key.toLowerCase());
      return `${start}${name}()`;
    });
    const shape = `${request.ieee754Compatible ? 1 : 0}${request.metadata ?? "none"}${request.store?.view === undefined ? "" : "s"}${request.paged === false ? "u" : ""}${request.keys ? "k" : ""}|${path}|${request.search}`;
    const cacheable = request.cache !== false && request.aliases === undefined;
    const cached = cacheable ? this.cache.get(shape) : undefined;
    // a keyed plan serves only a path whose keys KEYED found, as many (`Product()` is no key)
    if (cached !== undefined && keysOf(cached).length === keys.length) return withKeys(cached, keys);
    const planned = this.compile(request);
    if (planned.kind === "method") return planned;
    // a keyed read is kept only when its keys are where KEYED finds them, so that a hit can put them back
    const found = keysOf(planned);
    if (cacheable && found.length === keys.length && found.every((k, i) => k === keys[i]))
      this.cache.set(shape, planned);
    return planned;
  }

  private compile(request: PlanRequest): PlannedRead | MethodPath {
    const path = resolveResource(this.model, request.path, this.limits);
    if (path.kind === "method") return path;
    const read = this.compileRead(path, request);
    if (path.owners === undefined) return read;
    // the item is read at its own address, once its owners are checked to hold it
    const owners = planOwnerChecks(path.owners, request.store);
    return { ...read, owners, reads: [...new Set([...ownerReads(owners), ...read.reads])] };
  }

  private compileRead(path: Exclude<BoundPath, MethodPath>, request: PlanRequest): PlannedRead {
    const options = parseQueryOptions(request.search, this.limits);
    const bindOptions = { limits: this.limits, ...(request.aliases && { aliases: request.aliases }) };
    const prepare = {
      ...(request.paged !== false && { pageSize: this.limits.maxPageSize }),
      ieee754Compatible: request.ieee754Compatible,
      store: request.store,
      ...(request.keys && { keys: true }),
      metadata: request.metadata ?? "none",
      namespace: this.model.namespace,
    };
    const bind = (entity: AnyEntity) => bindQuery(this.model, entity, options, bindOptions);
    switch (path.kind) {
      case "collection": {
        const query =
          options.apply !== undefined ? bindApply(this.model, path.entity, options, bindOptions) : bind(path.entity);
        const context = "aggregates" in query ? applyContext(query) : readContext(query, false);
        const prepared = prepareCollection(query, prepare);
        const reads = readEntities(query);
        return { kind: "collection", entity: path.entity, root: path.entity, prepared, reads, context };
      }
      case "count": {
        const query = bind(path.entity);
        const prepared = prepareCount(query, prepare);
        const reads = readEntities(query);
        return { kind: "count", entity: path.entity, root: path.entity, prepared, reads, context: "Edm.Int64" };
      }
      case "entity": {
        const query = bind(path.entity);
        const prepared = prepareSingle(query, prepare);
        const reads = readEntities(query);
        return {
          kind: "entity",
          entity: path.entity,
          root: path.entity,
          key: path.key,
          related: false,
          prepared,
          reads,
          context: readContext(query, true),
        };
      }
      case "related": {
        const { source } = path;
        const query = bind(path.entity);
        const prepared = prepareRelated(query, source, prepare);
        const reads = readEntities(query, source);
        return {
          kind: "entity",
          entity: path.entity,
          root: source.root,
          key: source.key,
          related: true,
          prepared,
          reads,
          context: readContext(query, true),
        };
      }
      case "contained": {
        const { source } = path;
        const query = bind(path.entity);
        const reads = readEntities(query, source);
        const read = { entity: path.entity, root: source.root, key: source.key, reads };
        if (path.count) {
          const prepared = prepareContainedCount(query, source, path.inverse, prepare);
          return { kind: "count", ...read, prepared, context: "Edm.Int64" };
        }
        const prepared = prepareContained(query, source, path.inverse, prepare);
        return { kind: "collection", ...read, prepared, context: readContext(query, false) };
      }
      case "complex": {
        const { source } = path;
        const given = [...request.search.keys()].find((name) => !name.startsWith("@"));
        if (given !== undefined) {
          throw badRequest(
            "NotSupported",
            `${path.entity.name}.${path.name} is a complex value: query options such as ${given} do not apply to it.`,
            given,
          );
        }
        const prepared = prepareComplex(path.members, source, prepare);
        const reads = [source.root.name, ...source.via.map((v) => v.target.name)];
        // the complex type is named for its field (edm-structured-types.ts)
        const context = `${this.model.namespace}.${path.name}`;
        return { kind: "complex", entity: path.entity, root: source.root, key: source.key, prepared, reads, context };
      }
    }
  }
}
