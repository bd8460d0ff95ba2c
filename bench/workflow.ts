/**
 * The workflow part of `pnpm bench` (issue "Staged workflows"): does a staged write cost the same
 * at the thousandth step of a workflow as at the tenth, and how long does committing a thousand
 * staged changes take? Over HTTP against the host process, in tenant `bench`, as its user:
 *
 * - a warm-up workflow of 200 staged PATCHes and its commit, on products of its own: JIT, the
 *   host's pool and its prepared statements' plans settle before anything is timed;
 * - ONE workflow of BENCH_WORKFLOW_STEPS (default 1,000) steps, each
 *   `PATCH /api/Product(<guid>)?$select=Cost` with a new Cost for a different seeded product, so
 *   the staged state grows by one row a step; the requests go one after the other (a workflow is
 *   sequential by protocol) and each is timed from send to the end of its body. The first 50 steps
 *   and the last 50 are the two windows compared (p50, p99, mean, and late/early ratios);
 * - its commit (`POST /api/workflow/commit` as the next step), timed: all the changes at once;
 * - for scale, workflows of BENCH_WORKFLOW_COMMITS (default 100 and 10,000) Cost changes, each
 *   committed through the real commit step and timed. Staging ten thousand changes over HTTP would
 *   take minutes, so these are staged in bulk through the workflow's staged store (the same
 *   after-images and base versions a PATCH stages, one statement), after an unmeasured one of
 *   1,000. Their commit time per change shows whether a commit is set operations (flat) or work
 *   per record (growing).
 *
 * Every response must have the expected status, the next index one above the step's, and a step's
 * body the Cost it sent; after each commit its products must hold the new costs and no staged rows
 * may be left. Otherwise the run fails. The products get their earlier costs back at the end
 * (plain SQL), so the read scenarios of the next run (`query-filter` filters on Cost) read the
 * same data.
 */
import { type Database, inTenant, loadRecords, openDatabase, stagedStore } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import { benchTenant } from "./prepare.js";

/** the name BENCH_ONLY knows this part by */
export const WORKFLOW_PART = "workflow";

/** steps per latency window */
export const WORKFLOW_WINDOW = 50;

/** steps of the warm-up workflow, committed too */
export const WARM_UP_STEPS = 200;

/** changes of the unmeasured bulk-staged commit before the measured ones */
export const WARM_UP_COMMIT = 1000;

export interface LatencyWindow {
  /** the workflow's steps (Workflow-Index) measured, first and last */
  readonly from: number;
  readonly to: number;
  /** ms, one request each (p99 of 50 requests is the largest) */
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
}

export interface CommitRun {
  readonly changes: number;
  /** how the changes were staged: one PATCH a step, or in bulk through the staged store */
  readonly staged: "http" | "bulk";
  readonly ms: number;
  readonly changesPerSecond: number;
  readonly msPerChange: number;
}

export interface WorkflowResult {
  readonly steps: number;
  readonly early: LatencyWindow;
  readonly late: LatencyWindow;
  /** late over early */
  readonly ratio: { readonly p50: number; readonly p99: number; readonly mean: number };
  /** p50 and mean of every block of 100 steps: the whole curve, for the JSON */
  readonly curve: readonly LatencyWindow[];
  /** wall time of all the staged PATCHes of the big workflow */
  readonly patchSeconds: number;
  /** the commit of the workflow of `steps` PATCHes */
  readonly commit: CommitRun;
  /** the bulk-staged commits, smallest first */
  readonly commits: readonly CommitRun[];
  /** ms per change of the largest bulk-staged commit over that of the smallest (1: flat) */
  readonly perChangeRatio: number;
}

interface Client {
  readonly url: string;
  readonly token: string;
}

interface Product {
  readonly guid: string;
  /** numeric as PostgreSQL writes it, or null */
  readonly cost: string | null;
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** latencies[i] is step from + i */
function window(latencies: readonly number[], from: number): LatencyWindow {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    from,
    to: from + latencies.length - 1,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: latencies.reduce((s, l) => s + l, 0) / latencies.length,
  };
}

/** a cost other than the product's (and than earlier rounds'), with at most two decimals */
const newCost = (p: Product, i: number, round = 0) =>
  Math.round((Number(p.cost ?? 0) + 1 + round + (i % 100) / 100) * 100) / 100;

/** one workflow, its index kept the way a client keeps it (from Workflow-Next-Index) */
class Workflow {
  private index = 1;
  private constructor(
    private readonly client: Client,
    readonly id: string,
  ) {}

  static async create(client: Client): Promise<Workflow> {
    const response = await fetch(`${client.url}/api/workflow`, {
      method: "POST",
      headers: { authorization: `Bearer ${client.token}` },
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`POST /api/workflow → ${response.status} ${text}`);
    const { workflowId, nextIndex } = JSON.parse(text) as { workflowId: string; nextIndex: number };
    if (nextIndex !== 1) throw new Error(`a new workflow starts at index ${nextIndex}, not 1`);
    return new Workflow(client, workflowId);
  }

  get step(): number {
    return this.index;
  }

  /** sends one step and returns its body; throws unless the status is `expected` and the index advanced */
  async send(method: "PATCH" | "POST", path: string, expected: number, body?: unknown): Promise<string> {
    const response = await fetch(this.client.url + path, {
      method,
      headers: {
        authorization: `Bearer ${this.client.token}`,
        "workflow-id": this.id,
        "workflow-index": String(this.index),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (response.status !== expected)
      throw new Error(`workflow step ${this.index}: ${method} ${path} → ${response.status} ${text.slice(0, 2000)}`);
    const next = Number(response.headers.get("workflow-next-index"));
    if (next !== this.index + 1)
      throw new Error(
        `workflow step ${this.index}: ${method} ${path} answered Workflow-Next-Index ${response.headers.get("workflow-next-index")}, not ${this.index + 1}`,
      );
    this.index = next;
    return text;
  }

  /** a staged PATCH of the product's Cost, checked against the body it answers */
  async patchCost(guid: string, cost: number): Promise<void> {
    const text = await this.send("PATCH", `/api/Product(${guid})?$select=Cost`, 200, { Cost: cost });
    const answered = (JSON.parse(text) as { Cost?: unknown }).Cost;
    if (answered !== cost)
      throw new Error(`workflow step ${this.index - 1}: PATCH Product(${guid}) with Cost ${cost} answered ${text}`);
  }

  /** commits, expecting `changes` changes; returns the request's milliseconds */
  async commit(changes: number): Promise<number> {
    const sent = performance.now();
    const text = await this.send("POST", "/api/workflow/commit", 200);
    const ms = performance.now() - sent;
    const message = (JSON.parse(text) as { message?: string }).message;
    if (message !== `Committed ${changes} change${changes === 1 ? "" : "s"}.`)
      throw new Error(`the commit of ${changes} staged changes answered ${text}`);
    return ms;
  }

  /** closes it for good, removing anything still staged */
  async close(): Promise<void> {
    const response = await fetch(`${this.client.url}/api/workflow/${this.id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${this.client.token}` },
    });
    if (response.status !== 204)
      throw new Error(`DELETE /api/workflow/${this.id} → ${response.status} ${await response.text()}`);
  }
}

/** `count` seeded products of tenant `bench` spread over the key range (not the create scenario's) */
async function pickProducts(db: Database, count: number): Promise<Product[]> {
  const rows = await inTenant(db, benchTenant.id, (tx) =>
    tx.query<{ guid: string; cost: string | null }>({
      sql: `SELECT guid::text AS guid, cost::text AS cost FROM product
            WHERE tenant_id = $1 AND sku NOT LIKE 'bench-%' ORDER BY md5(guid::text) LIMIT $2`,
      params: [benchTenant.id, count],
    }),
  );
  if (rows.length < count)
    throw new Error(
      `the workflow part needs ${count} products in tenant ${benchTenant.id}, which has ${rows.length} (BENCH_SCALE seeded it small: lower BENCH_WORKFLOW_STEPS and BENCH_WORKFLOW_COMMITS)`,
    );
  return rows;
}

/** the products must hold the costs, and the workflows must have left no staged product rows */
async function verify(db: Database, products: readonly Product[], costs: readonly number[], workflowIds: string[]) {
  const [row] = await inTenant(db, benchTenant.id, (tx) =>
    tx.query<{ matching: string; staged: string }>({
      sql: `SELECT (SELECT count(*) FROM product p JOIN unnest($2::uuid[], $3::numeric[]) AS n(guid, cost)
                      ON p.tenant_id = $1 AND p.guid = n.guid AND p.cost = n.cost) AS matching,
                   (SELECT count(*) FROM product__staged WHERE tenant_id = $1 AND workflow_id = ANY($4::uuid[])) AS staged`,
      params: [benchTenant.id, products.map((p) => p.guid), costs.map(String), workflowIds],
    }),
  );
  if (Number(row?.matching) !== products.length || Number(row?.staged) !== 0)
    throw new Error(
      `after the commits ${row?.matching} of ${products.length} products hold the costs staged, and ${row?.staged} staged product rows are left`,
    );
}

/**
 * Stages a new cost for each product in workflow `workflowId` the way a PATCH stages it (the
 * product's whole after-image, with the version and image of its base row), in one statement
 * through the workflow's staged store instead of one HTTP step each.
 */
async function stageInBulk(db: Database, workflowId: string, products: readonly Product[], costs: readonly number[]) {
  const def = sampleModel.entity("Product")!;
  await inTenant(db, benchTenant.id, async (tx) => {
    const loaded = new Map(
      (
        await loadRecords(
          tx,
          def,
          benchTenant.id,
          products.map((p) => p.guid),
        )
      ).map((r) => [r.Guid, r]),
    );
    const images = products.map((p, i) => ({ ...loaded.get(p.guid)!, Cost: costs[i] }));
    await stagedStore(workflowId).insert(tx, def, benchTenant.id, images);
  });
}

/** the products' costs as they were before the part */
async function restore(db: Database, products: readonly Product[]): Promise<void> {
  await inTenant(db, benchTenant.id, (tx) =>
    tx.query({
      sql: `UPDATE product p SET cost = o.cost FROM unnest($2::uuid[], $3::numeric[]) AS o(guid, cost)
            WHERE p.tenant_id = $1 AND p.guid = o.guid`,
      params: [benchTenant.id, products.map((p) => p.guid), products.map((p) => p.cost)],
    }),
  );
  await db.query({ sql: "VACUUM (ANALYZE) product", params: [] });
}

/** stages a new cost for each product, one step each, returning each step's milliseconds */
async function stage(workflow: Workflow, products: readonly Product[], costs: readonly number[]): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < products.length; i++) {
    const sent = performance.now();
    await workflow.patchCost(products[i]!.guid, costs[i]!);
    latencies.push(performance.now() - sent);
  }
  return latencies;
}

/**
 * Runs the part against the host at `url` signed in as the bench user (`token`); the products'
 * costs are restored whatever happens.
 */
export async function runWorkflowBench(
  url: string,
  token: string,
  databaseUrl: string,
  steps: number,
  commitSizes: readonly number[],
  log: (line: string) => void = console.error,
): Promise<WorkflowResult> {
  if (steps < 2 * WORKFLOW_WINDOW) throw new Error(`the workflow part needs at least ${2 * WORKFLOW_WINDOW} steps`);
  const client: Client = { url, token };
  const db = await openDatabase({ url: databaseUrl, max: 2 });
  const sizes = [...commitSizes].sort((a, b) => a - b);
  let products: Product[] = [];
  const opened: Workflow[] = [];
  const open = async (): Promise<Workflow> => {
    const workflow = await Workflow.create(client);
    opened.push(workflow);
    return workflow;
  };
  try {
    products = await pickProducts(db, Math.max(WARM_UP_STEPS + steps, WARM_UP_COMMIT, ...sizes));
    const costs = products.map((p, i) => newCost(p, i));
    const warmUp = products.slice(0, WARM_UP_STEPS);
    const big = products.slice(WARM_UP_STEPS, WARM_UP_STEPS + steps);
    const bigCosts = costs.slice(WARM_UP_STEPS, WARM_UP_STEPS + steps);

    log(`workflow: warm-up, ${WARM_UP_STEPS} staged PATCHes and their commit…`);
    const warm = await open();
    await stage(warm, warmUp, costs);
    await warm.commit(WARM_UP_STEPS);

    log(`workflow: ${steps} staged PATCHes in one workflow…`);
    const workflow = await open();
    const started = performance.now();
    const latencies = await stage(workflow, big, bigCosts);
    const patchSeconds = (performance.now() - started) / 1000;
    log(`workflow: commit of ${steps} changes…`);
    const commitMs = await workflow.commit(steps);
    await verify(db, [...warmUp, ...big], [...costs.slice(0, WARM_UP_STEPS), ...bigCosts], [warm.id, workflow.id]);

    /** a workflow of `size` bulk-staged changes (round `round` of costs), committed and checked */
    const bulkCommit = async (size: number, round: number): Promise<number> => {
      const chosen = products.slice(0, size);
      const chosenCosts = chosen.map((p, i) => newCost(p, i, round));
      const bulk = await open();
      await stageInBulk(db, bulk.id, chosen, chosenCosts);
      const ms = await bulk.commit(size);
      await verify(db, chosen, chosenCosts, [bulk.id]);
      return ms;
    };
    log(`workflow: warm-up, a commit of ${WARM_UP_COMMIT} changes staged in bulk…`);
    await bulkCommit(WARM_UP_COMMIT, 1);
    const commits: CommitRun[] = [];
    for (const [i, size] of sizes.entries()) {
      log(`workflow: commit of ${size} changes staged in bulk…`);
      commits.push(run(size, "bulk", await bulkCommit(size, i + 2)));
    }

    const early = window(latencies.slice(0, WORKFLOW_WINDOW), 1);
    const late = window(latencies.slice(-WORKFLOW_WINDOW), steps - WORKFLOW_WINDOW + 1);
    const curve: LatencyWindow[] = [];
    for (let i = 0; i < latencies.length; i += 100) curve.push(window(latencies.slice(i, i + 100), i + 1));
    return {
      steps,
      early,
      late,
      ratio: { p50: late.p50 / early.p50, p99: late.p99 / early.p99, mean: late.mean / early.mean },
      curve,
      patchSeconds,
      commit: run(steps, "http", commitMs),
      commits,
      perChangeRatio: commits.length < 2 ? 1 : commits.at(-1)!.msPerChange / commits[0]!.msPerChange,
    };
  } finally {
    // a failed run leaves no open workflow behind (committed ones stay open until closed)
    for (const workflow of opened) await workflow.close().catch(() => undefined);
    if (products.length > 0)
      await restore(db, products).catch((error) => log(`workflow: restoring costs failed: ${error}`));
    await db.close();
  }
}

const run = (changes: number, staged: CommitRun["staged"], ms: number): CommitRun => ({
  changes,
  staged,
  ms,
  changesPerSecond: changes / (ms / 1000),
  msPerChange: ms / changes,
});
