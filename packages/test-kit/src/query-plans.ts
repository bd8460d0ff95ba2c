/**
 * The plans PostgreSQL makes for the statements the service sends (the plan tests): a database
 * whose statements are caught on their way to it (and an app over one), and a caught statement explained in a
 * tenant's transaction, so that row-level security applies as when the host runs it.
 */
import { type Database, inTenant, type SqlQuery, toQuery, watchStatements } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import { createApp, loadSigningKeys } from "@bizdata/host";
import { config } from "./host-app.js";

/** a node of `EXPLAIN (FORMAT JSON)`, with the fields the plan tests read */
export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  Alias?: string;
  "Index Cond"?: string;
  Plans?: PlanNode[];
}

/** a node and every node below it */
export const planNodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(planNodes)];

/** the plan of `statement` as `tenantId` runs it, every node of it */
export async function tenantPlan(db: Database, tenantId: string, { sql, params }: SqlQuery): Promise<PlanNode[]> {
  const [row] = await inTenant(db, tenantId, (tx) =>
    tx.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>({ sql: `EXPLAIN (FORMAT JSON) ${sql}`, params }),
  );
  return planNodes(row!["QUERY PLAN"][0].Plan);
}

/** `db` with every statement sent through it pushed onto `caught` */
export const watched = (db: Database, caught: SqlQuery[]): Database =>
  watchStatements(db, (statements) => caught.push(...statements.map(toQuery)));

/** the sample model's app over `db`, every statement it sends pushed onto `caught` */
export async function watchedApp(db: Database, caught: SqlQuery[]) {
  return createApp({
    db: watched(db, caught),
    model: sampleModel,
    keys: await loadSigningKeys(db),
    config,
  });
}
