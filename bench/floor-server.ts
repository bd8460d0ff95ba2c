/**
 * Child-process entry of the floor: bare Hono on @hono/node-server with hand-written SQL over
 * postgres.js, serving the scenarios' URLs with the same JSON as the host. It does what the host
 * must do and nothing more: one transaction per request that sets the role and the tenant exactly
 * as `inTenant` does (so row-level security costs both the same), prepared statements, a pool of
 * ten like the host's, and JSON built by PostgreSQL and passed through unparsed (architecture:
 * the read pipeline's lessons). It has no OData parsing, no model and no token check: those are
 * the host's overhead that the ratio measures. The tenant is fixed (BENCH_TENANT).
 */
import { randomUUID } from "node:crypto";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import postgres from "postgres";

const tenantId = process.env.BENCH_TENANT!;
const sql = postgres(process.env.DATABASE_URL!, { max: 10, prepare: true, onnotice: () => {} });

const inTenant = <T>(mode: "read only" | "read write", fn: (tx: postgres.TransactionSql) => Promise<T>) =>
  sql.begin(mode, async (tx) => {
    await tx`SELECT set_config('role', 'bizdata_app', true), set_config('app.tenant_id', ${tenantId}, true)`;
    return fn(tx);
  }) as Promise<T>;

const KEY_PATH = /^\/api\/Product\(([0-9a-fA-F-]{36})\)$/;

const app = new Hono()
  .get("/api/*", async (c) => {
    const key = KEY_PATH.exec(c.req.path)?.[1];
    if (key !== undefined) {
      const [row] = await inTenant(
        "read only",
        (tx) => tx<{ body: string }[]>`
          SELECT row_to_json(p)::text AS body FROM (
            SELECT guid AS "Guid", sku AS "SKU", sales_description AS "SalesDescription", cost AS "Cost"
            FROM product WHERE tenant_id = ${tenantId} AND guid = ${key.toLowerCase()}::uuid) p`,
      );
      if (row === undefined) return c.json({ error: { code: "NotFound", message: "No such product." } }, 404);
      return c.body(row.body, 200, { "Content-Type": "application/json" });
    }
    if (c.req.path !== "/api/Product") return c.notFound();
    const top = Number(c.req.query("$top") ?? 100);
    const [row] = await inTenant(
      "read only",
      (tx) => tx<{ body: string }[]>`
        SELECT '{"value":[' || coalesce(string_agg(row_to_json(p)::text, ',' ORDER BY p."Guid"), '') || ']}' AS body
        FROM (
          SELECT guid AS "Guid", sku AS "SKU", sales_description AS "SalesDescription", cost AS "Cost"
          FROM product WHERE tenant_id = ${tenantId} ORDER BY guid LIMIT ${top}) p`,
    );
    return c.body(row!.body, 200, { "Content-Type": "application/json" });
  })
  .post("/api/Product", async (c) => {
    const body = await c.req.json<{ SKU: string; SalesDescription?: string | null; Cost?: number | null }>();
    const guid = randomUUID();
    const description = body.SalesDescription ?? null;
    await inTenant(
      "read write",
      (tx) => tx`
        INSERT INTO product (tenant_id, guid, title, sku, sales_description, cost, price)
        VALUES (${tenantId}, ${guid}, ${description ?? body.SKU}, ${body.SKU}, ${description}, ${body.Cost ?? null}, NULL)`,
    );
    return c.json({ Guid: guid }, 201, { Location: `/api/Product(${guid})` });
  });

const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  process.send?.({ url: `http://127.0.0.1:${info.port}` });
});
process.on("disconnect", () => server.close(() => void sql.end({ timeout: 5 }).then(() => process.exit(0))));
