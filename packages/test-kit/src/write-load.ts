/**
 * A steady write load against a running host: workers POST products with unique SKUs back to
 * back, in bounded loops, and record every request's outcome (status and Retry-After, or the
 * connection error, or `timeout` when no answer came within the deadline). With `reads`, the
 * workers read the tenant's product count instead (one-statement reads, which the PostgreSQL
 * driver serves from a pool of their own).
 */

export interface Outcome {
  readonly sku: string;
  /** Date.now() when the request was sent and when its answer (or error) came */
  readonly started: number;
  readonly ended: number;
  readonly status?: number;
  readonly retryAfter?: string | null;
  /** no HTTP answer: the socket error's code, or `timeout` */
  readonly error?: string;
}

export interface WriteLoad {
  readonly outcomes: readonly Outcome[];
  /** the SKUs of the writes the host acknowledged (2xx); none for reads */
  acknowledged(): string[];
  /** stops the workers after their current request and waits for them */
  stop(): Promise<void>;
}

export interface WriteLoadOptions {
  /** prefix of the SKUs: unique per load */
  readonly label: string;
  readonly workers?: number;
  /** requests per worker at most */
  readonly maxPerWorker?: number;
  /** a request without an answer after this long is abandoned and recorded as `timeout` */
  readonly deadlineMs?: number;
  /** a worker stops at its first connection error (the host has closed its listener) */
  readonly stopOnConnectionError?: boolean;
  /** GET the product count instead of POSTing products */
  readonly reads?: boolean;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** polls `condition` every 20 ms; false if it did not hold within `timeoutMs` */
export async function eventually(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await sleep(20)) if (condition()) return true;
  return condition();
}

export async function signInOver(url: string, tenantId: string, username: string, password: string) {
  const res = await fetch(`${url}/api/auth/signin`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ TenantId: tenantId, Username: username, Password: password }),
  });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

const errorCode = (error: unknown): string => {
  const e = error as { name?: string; message?: string; cause?: { code?: string } };
  return e.name === "TimeoutError" ? "timeout" : (e.cause?.code ?? e.message ?? String(error));
};

export function startWriteLoad(url: string, token: string, options: WriteLoadOptions): WriteLoad {
  const {
    label,
    workers = 4,
    maxPerWorker = 5000,
    deadlineMs = 10_000,
    stopOnConnectionError = false,
    reads = false,
  } = options;
  const outcomes: Outcome[] = [];
  let stopped = false;
  const worker = async (w: number) => {
    for (let i = 0; i < maxPerWorker && !stopped; i++) {
      const sku = `${label}-${w}-${i}`;
      const started = Date.now();
      try {
        const res = reads
          ? await fetch(`${url}/api/Product/$count`, {
              headers: { authorization: `Bearer ${token}` },
              signal: AbortSignal.timeout(deadlineMs),
            })
          : await fetch(`${url}/api/Product`, {
              method: "POST",
              headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
              body: JSON.stringify({ SKU: sku, SalesDescription: "written under load", Price: 1 }),
              signal: AbortSignal.timeout(deadlineMs),
            });
        await res.arrayBuffer();
        outcomes.push({
          sku,
          started,
          ended: Date.now(),
          status: res.status,
          retryAfter: res.headers.get("retry-after"),
        });
        // a refused write: do not spin while the database is away
        if (res.status >= 300) await sleep(20);
      } catch (error) {
        outcomes.push({ sku, started, ended: Date.now(), error: errorCode(error) });
        if (stopOnConnectionError) return;
        await sleep(20);
      }
    }
  };
  const running = Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
  return {
    outcomes,
    acknowledged: () =>
      reads ? [] : outcomes.filter((o) => o.status !== undefined && o.status < 300).map((o) => o.sku),
    async stop() {
      stopped = true;
      await running;
    },
  };
}
