/**
 * The body of a registration (`POST {base}/$webhooks`) or of a change (`PATCH …/{id}`), checked:
 * `url` an endpoint the host sends to (webhook-endpoint.ts), `entities` entity sets of the model
 * that keep a change log (no virtual entity), `kinds` some of create, update and delete (all when
 * left out), `enabled` a boolean (true when left out). Every fault is a detail naming its
 * property (`entities[1]`), all of them in one 400 ValidationError.
 */
import { badRequest, type ChangeKind, type ErrorDetail, type Model, validationError } from "@bizdata/core";
import { endpointProblem } from "./webhook-endpoint.js";
import type { WebhookFields } from "./webhook-store.js";

export const CHANGE_KINDS: readonly ChangeKind[] = ["create", "update", "delete"];

/** the most entity sets one subscription names */
const MAX_ENTITIES = 100;

const FIELDS = ["url", "entities", "kinds", "enabled"] as const;

/** a non-empty list of distinct strings, each checked by `problem`; every fault a detail */
function words(
  value: unknown,
  target: string,
  problem: (word: string) => string | undefined,
  details: ErrorDetail[],
): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0) {
    details.push({ code: "InvalidType", target, message: `${target} must be a non-empty array of strings.` });
    return undefined;
  }
  if (value.length > MAX_ENTITIES) {
    details.push({ code: "TooLong", target, message: `${target} names more than ${MAX_ENTITIES}.` });
    return undefined;
  }
  const seen = new Set<string>();
  for (const [i, item] of value.entries()) {
    const at = `${target}[${i}]`;
    const fault =
      typeof item !== "string"
        ? `${at} must be a string.`
        : seen.has(item)
          ? `${at} names ${JSON.stringify(item)} a second time.`
          : problem(item);
    if (fault !== undefined) details.push({ code: "InvalidValue", target: at, message: fault });
    if (typeof item === "string") seen.add(item);
  }
  return [...seen];
}

/**
 * The fields `body` gives, checked against `model`: all of them for a registration (`partial`
 * false; kinds and enabled have defaults), those present for a change. Throws the 400.
 */
export function webhookFields(
  body: unknown,
  model: Model,
  allowInsecure: boolean,
  partial: boolean,
): Partial<WebhookFields> {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw badRequest("InvalidBody", "The body must be a JSON object.");
  const given = body as Record<string, unknown>;
  const details: ErrorDetail[] = [];
  for (const name of Object.keys(given))
    if (!(FIELDS as readonly string[]).includes(name))
      details.push({
        code: "UnknownProperty",
        target: name,
        message: `${name} is not a property of a webhook; it has ${FIELDS.join(", ")}.`,
      });
  const fields: { -readonly [K in keyof WebhookFields]?: WebhookFields[K] } = {};
  const has = (name: (typeof FIELDS)[number]) => Object.hasOwn(given, name);
  const required = (name: string) => details.push({ code: "Required", target: name, message: `${name} is required.` });

  if (has("url")) {
    const problem = typeof given.url === "string" ? endpointProblem(given.url, allowInsecure) : "url must be a string.";
    if (problem === undefined) fields.url = given.url as string;
    else details.push({ code: "InvalidValue", target: "url", message: problem });
  } else if (!partial) required("url");

  if (has("entities")) {
    const entities = words(
      given.entities,
      "entities",
      (name) => {
        const def = model.entity(name);
        if (def === undefined) return `${name} is not an entity set of the service (names are case sensitive).`;
        if (def.storage !== undefined) return `${name} is a virtual entity: its writes go to no change log.`;
        return undefined;
      },
      details,
    );
    if (entities !== undefined) fields.entities = entities;
  } else if (!partial) required("entities");

  if (has("kinds")) {
    const kinds = words(
      given.kinds,
      "kinds",
      (kind) =>
        (CHANGE_KINDS as readonly string[]).includes(kind)
          ? undefined
          : `${JSON.stringify(kind)} is not a kind of change: use ${CHANGE_KINDS.join(", ")}.`,
      details,
    );
    if (kinds !== undefined) fields.kinds = kinds as ChangeKind[];
  } else if (!partial) fields.kinds = CHANGE_KINDS;

  if (has("enabled")) {
    if (typeof given.enabled === "boolean") fields.enabled = given.enabled;
    else details.push({ code: "InvalidType", target: "enabled", message: "enabled must be true or false." });
  } else if (!partial) fields.enabled = true;

  if (details.length > 0) throw validationError(details, "The webhook is not valid.");
  return fields;
}
