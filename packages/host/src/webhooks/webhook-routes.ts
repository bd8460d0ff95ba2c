/**
 * The tenant's webhook subscriptions, under the service's `$`-segment `{base}/$webhooks` (like
 * `$batch` and `$metadata`, it takes no entity set's name):
 *
 * | Request | Answer |
 * | --- | --- |
 * | `POST /$webhooks` `{url, entities, kinds?, enabled?}` | `201`, `Location`, the subscription with its `secret` (the only time it is shown) |
 * | `GET /$webhooks` | `200 {"value":[…]}` |
 * | `GET /$webhooks/{id}` | `200` the subscription |
 * | `PATCH /$webhooks/{id}` `{url?, entities?, kinds?, enabled?}` | `200` the subscription |
 * | `DELETE /$webhooks/{id}` | `204`, its deliveries gone with it |
 * | `GET /$webhooks/{id}/deliveries[?state=pending\|dead][&$top=n]` | `200 {"value":[…]}`, the newest first |
 * | `POST /$webhooks/{id}/deliveries/{delivery}/redeliver` | `202` the dead-lettered delivery, queued again |
 * | `POST /$webhooks/{id}/redeliver` | `202 {"redelivered":n}`: all its dead-lettered deliveries queued again |
 *
 * Who may: a role with the `webhooks` grant (permissions.ts) for every entity set a subscription
 * names (and the right to read them, as its events may carry their values); one without it for
 * any gets 403 on every route, and sees only the subscriptions it may manage entirely.
 */
import { type Database, forbidden, isGuid, type Model, notFound, ServiceError } from "@bizdata/core";
import { type BodyLimits, readJsonBody } from "@bizdata/odata";
import { type Context, Hono } from "hono";
import type { AuthVariables } from "../auth/authenticate.js";
import { can, type Roles, requireAll } from "../auth/permissions.js";
import { webhookFields } from "./webhook-registration.js";
import type { WebhookSettings } from "./webhook-settings.js";
import {
  createWebhook,
  type Delivery,
  deleteWebhook,
  findDelivery,
  findWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  updateWebhook,
  type Webhook,
} from "./webhook-store.js";
import type { DeliveryState } from "./webhook-tables.js";

export const WEBHOOKS_SEGMENT = "$webhooks";

export interface WebhookRouteOptions {
  readonly db: Database;
  readonly model: Model;
  readonly roles: Roles;
  readonly settings: Pick<WebhookSettings, "allowInsecure" | "perTenant">;
  readonly bodyLimits: BodyLimits;
  /** the most deliveries one listing answers */
  readonly maxPageSize: number;
  /** where the API is mounted: Location headers start with it */
  readonly basePath: string;
}

type Env = { Variables: AuthVariables };

const STATES: readonly DeliveryState[] = ["pending", "dead"];

/** a delivery as JSON, its event as the very text sent */
const deliveryJson = ({ event, ...rest }: Delivery) => `${JSON.stringify(rest).slice(0, -1)},"event":${event}}`;

export function webhookRoutes({ db, model, roles, settings, bodyLimits, maxPageSize, basePath }: WebhookRouteOptions) {
  const entities = [...model.entities.keys()];
  const app = new Hono<Env>();

  /** the caller, who must hold the grant for some entity set to be here at all */
  const manager = (c: Context<Env>) => {
    const principal = c.get("principal");
    if (!entities.some((entity) => can(roles, principal, "webhooks", entity)))
      throw forbidden("managing webhook subscriptions");
    return principal;
  };
  const mayManage = (c: Context<Env>, webhook: Pick<Webhook, "entities">) =>
    requireAll(roles, c.get("principal"), "webhooks", webhook.entities);
  const json = (c: Context<Env>, status: 200 | 201 | 202, body: string, headers: Record<string, string> = {}) =>
    c.body(body, status, { "Content-Type": "application/json", "Cache-Control": "no-store", ...headers });
  /** the subscription the path names, which the caller may manage; 404 for none (or another tenant's) */
  const named = async (c: Context<Env>): Promise<Webhook> => {
    const { tenantId } = manager(c);
    const id = c.req.param("id") ?? "";
    const webhook = isGuid(id) ? await findWebhook(db, tenantId, id) : undefined;
    if (webhook === undefined) throw notFound(`No webhook subscription ${id}.`);
    mayManage(c, webhook);
    return webhook;
  };

  app.post("/", async (c) => {
    const { tenantId, username } = manager(c);
    const fields = webhookFields(await readJsonBody(c.req.raw, bodyLimits), model, settings.allowInsecure, false);
    mayManage(c, { entities: fields.entities ?? [] });
    const created = await createWebhook(db, tenantId, fields as Required<typeof fields>, username, settings.perTenant);
    return json(c, 201, JSON.stringify(created), { Location: `${basePath}/${WEBHOOKS_SEGMENT}/${created.id}` });
  });

  app.get("/", async (c) => {
    const principal = manager(c);
    const all = await listWebhooks(db, principal.tenantId);
    const value = all.filter((webhook) => webhook.entities.every((e) => can(roles, principal, "webhooks", e)));
    return json(c, 200, JSON.stringify({ value }));
  });

  app.get("/:id", async (c) => json(c, 200, JSON.stringify(await named(c))));

  app.patch("/:id", async (c) => {
    const webhook = await named(c);
    const change = webhookFields(await readJsonBody(c.req.raw, bodyLimits), model, settings.allowInsecure, true);
    const updated = await updateWebhook(db, c.get("principal").tenantId, webhook.id, (current) => {
      mayManage(c, current);
      if (change.entities !== undefined) mayManage(c, { entities: change.entities });
      return change;
    });
    if (updated === undefined) throw notFound(`No webhook subscription ${webhook.id}.`);
    return json(c, 200, JSON.stringify(updated));
  });

  app.delete("/:id", async (c) => {
    const webhook = await named(c);
    const gone = await deleteWebhook(db, c.get("principal").tenantId, webhook.id, (current) => mayManage(c, current));
    if (!gone) throw notFound(`No webhook subscription ${webhook.id}.`);
    return c.body(null, 204);
  });

  app.get("/:id/deliveries", async (c) => {
    const webhook = await named(c);
    const state = c.req.query("state");
    if (state !== undefined && !(STATES as readonly string[]).includes(state))
      throw new ServiceError("InvalidValue", `state must be one of ${STATES.join(", ")}.`, "state");
    const top = c.req.query("$top");
    const limit = top === undefined ? maxPageSize : Number(top);
    if (!Number.isInteger(limit) || limit < 0 || limit > maxPageSize)
      throw new ServiceError("InvalidValue", `$top must be an integer from 0 to ${maxPageSize}.`, "$top");
    const rows = await listDeliveries(db, c.get("principal").tenantId, webhook.id, {
      state: state as DeliveryState | undefined,
      limit,
    });
    return json(c, 200, `{"value":[${rows.map(deliveryJson).join(",")}]}`);
  });

  app.post("/:id/deliveries/:delivery/redeliver", async (c) => {
    const webhook = await named(c);
    const { tenantId } = c.get("principal");
    const id = c.req.param("delivery");
    const current = isGuid(id) ? await findDelivery(db, tenantId, webhook.id, id) : undefined;
    if (current === undefined) throw notFound(`No delivery ${id} of webhook subscription ${webhook.id}.`);
    const [queued] = await redeliver(db, tenantId, webhook.id, id);
    // pending already (or queued again by another request just now): it will be sent as it is
    if (queued === undefined)
      throw new ServiceError("DeliveryPending", `Delivery ${id} is pending: it will be sent without being asked.`);
    return json(c, 202, deliveryJson(queued));
  });

  app.post("/:id/redeliver", async (c) => {
    const webhook = await named(c);
    const queued = await redeliver(db, c.get("principal").tenantId, webhook.id);
    return json(c, 202, JSON.stringify({ redelivered: queued.length }));
  });

  return app;
}
