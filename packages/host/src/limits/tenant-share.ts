/**
 * Per-tenant fairness (issue 35): no tenant's requests hold more than a share of the host's
 * database work at once. Each tenant has a gate of `perTenant` places (DATABASE_POOL_SIZE ×
 * DATABASE_TENANT_SHARE, at least one); its further requests wait in that tenant's own queue,
 * in order, and past the queue's bound or the wait's they are refused with 429 `TenantBusy`,
 * while every other tenant's requests go by.
 *
 * A place is held per request, from after authentication to the end of the answer, not per
 * transaction: a request's transactions run one after another, so its place bounds its
 * connections, and a `$batch` holds one place for its whole duration (its parts, replayed or
 * served directly, are the batch's work and take none of their own). Counted per request, a
 * transaction never waits for a place inside another one, so nothing can deadlock on it. On
 * PGlite, which has one connection, the places are the host's concurrency slots: a tenant has at
 * most `perTenant` requests in PGlite's line at once, so another tenant's read waits behind at
 * most those.
 */
import { type GateRefusals, PoolGate, tenantBusy } from "@bizdata/core";
import type { Context, MiddlewareHandler } from "hono";

export interface TenantShareSettings {
  /** requests of one tenant served at once; 0 turns the share off */
  readonly perTenant: number;
  /** requests of one tenant that may wait beyond those (DATABASE_TENANT_QUEUE) */
  readonly queue: number;
  /** milliseconds a request waits for a place at most (DATABASE_TENANT_WAIT_MS) */
  readonly waitMs: number;
}

/** the places of a tenant's request: DATABASE_TENANT_SHARE of DATABASE_POOL_SIZE, rounded down, at least one */
export const placesPerTenant = (poolSize: number, share: number): number =>
  share === 0 ? 0 : Math.max(1, Math.floor(poolSize * share));

/** seconds a refused request is told to wait: a place frees as soon as one of the tenant's requests ends */
const RETRY_AFTER = 1;

export class TenantShare {
  /** only tenants with requests in flight: a gate is dropped when its last request ends */
  private readonly gates = new Map<string, PoolGate>();
  private readonly refusals: GateRefusals;

  constructor(readonly settings: TenantShareSettings) {
    const { perTenant, queue, waitMs } = settings;
    this.refusals = {
      queue,
      full: () =>
        tenantBusy(
          `This tenant already has ${perTenant} requests in progress and ${queue} waiting (DATABASE_TENANT_QUEUE); retry shortly.`,
          RETRY_AFTER,
        ),
      timedOut: () =>
        tenantBusy(
          `This tenant's request waited ${waitMs} ms (DATABASE_TENANT_WAIT_MS) behind its ${perTenant} requests in progress; retry shortly.`,
          RETRY_AFTER,
        ),
    };
  }

  /** runs `work` in one of `tenant`'s places, after those ahead of it in the tenant's queue */
  async run<T>(tenant: string, work: () => Promise<T>): Promise<T> {
    let gate = this.gates.get(tenant);
    if (gate === undefined) {
      gate = new PoolGate(this.settings.perTenant, this.settings.waitMs, this.refusals);
      this.gates.set(tenant, gate);
    }
    try {
      return await gate.run(work);
    } finally {
      const { busy, waiting } = gate.stats();
      if (busy === 0 && waiting === 0) this.gates.delete(tenant);
    }
  }

  /** `tenant`'s requests in progress and waiting now */
  load(tenant: string): { readonly busy: number; readonly waiting: number } {
    const stats = this.gates.get(tenant)?.stats();
    return { busy: stats?.busy ?? 0, waiting: stats?.waiting ?? 0 };
  }
}

/**
 * The middleware that runs an authenticated request in a place of its tenant's (after
 * `authenticate`), except where `own(c)` says its work takes places otherwise: an MCP call, whose
 * tools take one for each of their calls of the services (its answer streams on while a tool
 * waits for a person's answer, which comes on another request: held for the stream, the place
 * would keep that answer waiting).
 */
export function sharedByTenants(
  share: TenantShare,
  own: (c: Context) => boolean,
): MiddlewareHandler<{ Variables: { principal: { tenantId: string } } }> {
  return (c, next) => (own(c) ? next() : share.run(c.get("principal").tenantId, next));
}
