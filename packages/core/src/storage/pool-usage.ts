/**
 * How busy a driver's connections are, for the host's pool metrics. Neither postgres.js nor PGlite
 * reports it, so each driver counts its own operations: a statement outside a transaction, or a
 * whole transaction, holds a connection from start to end. Operations beyond the pool's size wait
 * for one (PGlite's single connection runs one at a time; postgres.js may pipeline statements on a
 * busy connection, so for it `waiting` is an upper bound).
 */

export interface PoolStats {
  /** connections the pool may hold (postgres.js opens them as needed) */
  readonly size: number;
  /** operations holding a connection now */
  readonly busy: number;
  /** operations waiting for a connection */
  readonly waiting: number;
}

export interface PoolUsage {
  /** runs `operation`, counting it for as long as it runs */
  track<T>(operation: Promise<T>): Promise<T>;
  stats(): PoolStats;
}

export function poolUsage(size: number): PoolUsage {
  let running = 0;
  return {
    async track(operation) {
      running++;
      try {
        return await operation;
      } finally {
        running--;
      }
    },
    stats: () => ({ size, busy: Math.min(running, size), waiting: Math.max(0, running - size) }),
  };
}
