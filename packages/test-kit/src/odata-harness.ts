/**
 * The OData service called as a host calls it, with no host: for a tenant of its own, a fetch-like
 * `call(method, url, { body, headers })` makes the service request of a fetch `Request`
 * (odataRequestOf), runs `/api/$batch` with runBatch (its parts as calls of the service), and answers a thrown error as a host does
 * (errorResponse), so the service's behaviour tests read like HTTP. Every caller may do
 * everything: what a host adds (sign-in, roles, rate limits, its own headers) is tested in
 * packages/host.
 */
import { type Database, inTenant, migrate, tableQueries, tenantFeatureTable } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import {
  type BatchLimits,
  createODataService,
  defaultBatchLimits,
  defaultBodyLimits,
  defaultQueryLimits,
  errorResponse,
  errorResult,
  inChangeset,
  type ODataResult,
  type ODataService,
  type ODataServiceOptions,
  odataRequestOf,
  runBatch,
  tenantInfo,
} from "@bizdata/odata";
import { testDatabase, uniqueTenant } from "./database.js";

/** the limits the host's tests run with (host-app.ts): pages of 50 records, bodies of 64 KiB */
export const limits = {
  queryLimits: { ...defaultQueryLimits, maxPageSize: 50 },
  bodyLimits: { ...defaultBodyLimits, maxBytes: 64 * 1024 },
  batchLimits: defaultBatchLimits,
};

export interface CallInit {
  /** serialized as JSON unless text or a stream (a stream goes out chunked, without Content-Length) */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** a tenant of the service and a way to call it */
export interface ServiceTenant {
  readonly tenantId: string;
  /** the service the tenant's calls go to */
  readonly service: ODataService;
  /** `fetch`-like: `url` is a path under the base path (`/api/Product?$top=3`) */
  call(method: string, url: string, init?: CallInit): Promise<Response>;
  /** turns a feature on for the tenant (features gate methods and logic) */
  enable(feature: string): Promise<void>;
}

export interface HarnessOptions extends Partial<ODataServiceOptions> {
  /** what a `$batch` may hold and answer (default the host tests' limits) */
  readonly batchLimits?: BatchLimits;
  /**
   * the database the service runs on (default the test database): a wrapper of the test
   * database, e.g. one that records statements; the model is migrated on the test database
   */
  readonly db?: Database;
}

/**
 * a service over the test database with `options` (the sample model and the host tests' limits
 * by default), its model migrated, and its tenants
 */
export async function serviceHarness(options: HarnessOptions = {}) {
  const base = await testDatabase();
  const { model = sampleModel, db = base, batchLimits = limits.batchLimits, ...serviceOptions } = options;
  await migrate(base, model);
  const service = createODataService({ queryLimits: limits.queryLimits, ...serviceOptions, db, model });
  return { service, tenant: (tenantId: string) => tenantOf(service, tenantId, batchLimits) };
}

let shared: ReturnType<typeof serviceHarness> | undefined;

/** a new tenant of the sample model's service (built once per worker) */
export async function serviceTenant(label = "t"): Promise<ServiceTenant> {
  shared ??= serviceHarness();
  return (await shared).tenant(uniqueTenant(label));
}

const ORIGIN = "http://service.test";

function tenantOf(service: ODataService, tenantId: string, batchLimits: BatchLimits): ServiceTenant {
  const { model, basePath } = service;
  const { bodyLimits } = limits;
  const failure = (err: unknown): ODataResult => errorResult(errorResponse(err, model));

  const answer = async (request: Request): Promise<ODataResult> => {
    try {
      if (request.method === "POST" && new URL(request.url).pathname === `${basePath}/$batch`) {
        return await runBatch(request, {
          model,
          basePath,
          bodyLimits,
          batchLimits,
          tenantId,
          serve: (part, _headers, unit) => service.handle(part, unit).catch(failure),
          features: async () => (await inTenant(service.db, tenantId, (tx) => tenantInfo(tx, tenantId))).features,
          changeset: (prefetch, parts) => inChangeset(service.db, tenantId, prefetch, parts),
        });
      }
      return await service.handle(odataRequestOf(request, { basePath, tenantId, bodyLimits }));
    } catch (err) {
      return failure(err);
    }
  };

  return {
    tenantId,
    service,
    call: async (method, url, { body, headers = {} } = {}) =>
      responseOf(
        await answer(
          new Request(new URL(url, ORIGIN), {
            method,
            headers: { ...(body !== undefined && { "Content-Type": "application/json" }), ...headers },
            ...(body instanceof ReadableStream
              ? { body, duplex: "half" }
              : body !== undefined && { body: typeof body === "string" ? body : JSON.stringify(body) }),
          } as RequestInit),
        ),
      ),
    enable: async (feature) => {
      await inTenant(service.db, tenantId, (tx) =>
        tableQueries(tx).insert(tenantFeatureTable).values({ tenantId, feature }).onConflictDoNothing(),
      );
    },
  };
}

const responseOf = (result: ODataResult): Response =>
  new Response(result.body ?? null, { status: result.status, headers: result.headers });
