/**
 * Natural-key references on writes (spec 4.3): a reference may be given as the target's Guid or
 * as its natural key. A GUID-shaped string is tried as a Guid first; no match is
 * `ReferenceNotFound`, several matches `ReferenceAmbiguous`, with the property path as target.
 * Lookups are batched: one query per target entity per call, never one per value.
 */
import { sql } from "drizzle-orm";
import { type BadRequestCode, badRequest, type ErrorDetail, ServiceError } from "../errors.js";
import type { AnyEntity, Model } from "../model/model.js";
import type { Session } from "../storage/database.js";
import { columnOf, persistedColumns, TENANT_COLUMN } from "../storage/naming.js";
import { fieldsHolding, rowToRecord } from "../storage/record-rows.js";
import { settled } from "../storage/settled.js";
import { relation } from "../storage/staged-view.js";
import { ReadCache } from "./read-cache.js";

/** the natural key's value as text, next to a looked-up record's columns (no column can be named so) */
const KEY = "@key";

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isGuid = (value: unknown): value is string => typeof value === "string" && GUID.test(value);

interface Site {
  readonly target: AnyEntity;
  readonly value: string | number | boolean;
  readonly path: string;
  /** the object holding the reference, and its property: where the Guid goes once found */
  readonly holder: Record<string, unknown>;
  readonly key: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const isKey = (v: unknown): v is string | number | boolean =>
  typeof v === "string" || typeof v === "number" || typeof v === "boolean";

const referenceHolders = fieldsHolding("reference");

/**
 * Every reference value in a write body, with where it sits. Tolerant of bodies not validated
 * yet (a batch prefetches before each part validates): what is not shaped like a reference is
 * skipped and left to validation.
 */
function collect(model: Model, def: AnyEntity, body: Record<string, unknown>, prefix: string, out: Site[]): void {
  // every write's body passes here, a changeset's twice: only the properties that can hold a
  // reference are looked at, and nothing is made for one that holds none
  for (const [name, field] of referenceHolders(def)) {
    if (!Object.hasOwn(body, name)) continue;
    const value = body[name];
    if (field.kind === "reference" && isKey(value)) {
      out.push({ target: model.entity(field.target)!, value, path: `${prefix}${name}`, holder: body, key: name });
    } else if (field.kind === "complex" && isObject(value)) {
      for (const member in field.fields) {
        const memberField = field.fields[member]!;
        const v = value[member];
        if (memberField.kind !== "reference" || !isKey(v)) continue;
        out.push({
          target: model.entity(memberField.target)!,
          value: v,
          path: `${prefix}${name}.${member}`,
          holder: value,
          key: member,
        });
      }
    } else if (field.kind === "collection" && Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item = value[i];
        if (isObject(item)) collect(model, field.target, item, `${prefix}${name}[${i}].`, out);
      }
    }
  }
}

/** one statement per target entity for the values the cache has not seen yet; the records found are cached whole */
async function lookUp(session: Session, tenantId: string, sites: readonly Site[], cache: ReadCache): Promise<void> {
  // in a changeset every part's values were looked up by its prefetch: then nothing is made here
  let unasked: Map<AnyEntity, Set<string>> | undefined;
  for (const site of sites) {
    const value = String(site.value);
    if (cache.keys(site.target).asked.has(value)) continue;
    unasked ??= new Map();
    const values = unasked.get(site.target);
    if (values === undefined) unasked.set(site.target, new Set([value]));
    else values.add(value);
  }
  if (unasked === undefined) return;
  // one statement per target entity, sent together: a write that names a customer, a price level
  // and products waits for one round trip, not three
  const targets = [...unasked].map(([target, values]) => {
    const fresh = [...values];
    return { target, fresh, guids: fresh.filter(isGuid).map((g) => g.toLowerCase()) };
  });
  const answers = await settled(
    targets.map(({ target, fresh, guids }) => {
      const nk = columnOf(target, [target.naturalKey.property])!;
      const keyColumn = sql.identifier(nk.column);
      const columns = sql.join(
        persistedColumns(target).map((c) => sql.identifier(c.column)),
        sql`, `,
      );
      return session.query<Record<string, unknown>>(
        sql`SELECT ${columns}, ${keyColumn}::text AS ${sql.identifier(KEY)} FROM ${relation(target, session.store.view)} AS r
          WHERE ${sql.identifier(TENANT_COLUMN)} = ${tenantId}
          AND (guid = ANY(${sql.param(guids)}::uuid[]) OR ${keyColumn}::text = ANY(${sql.param(fresh)}::text[]))`,
      );
    }),
  );
  targets.forEach(({ target, fresh, guids }, at) => {
    const rows = answers[at]!;
    const known = cache.keys(target);
    for (const v of fresh) known.asked.add(v);
    const records = rows.map((row) => rowToRecord(target, row));
    const found = new Set(records.map((r) => r.Guid as string));
    cache.remember(
      target,
      records,
      guids.filter((g) => !found.has(g)),
    );
    rows.forEach((row, i) => {
      const guid = records[i]!.Guid as string;
      known.guids.add(guid);
      const key = row[KEY] as string | null;
      if (key === null) return;
      const list = known.byKey.get(key) ?? [];
      if (!list.includes(guid)) list.push(guid);
      known.byKey.set(key, list);
    });
  });
}

/** Looks up the references of many write bodies at once (a changeset), one statement per target entity. */
export async function prefetchReferences(
  session: Session,
  model: Model,
  tenantId: string,
  writes: readonly { readonly entity: AnyEntity; readonly body: unknown }[],
  cache: ReadCache = new ReadCache(),
): Promise<ReadCache> {
  const sites: Site[] = [];
  // nothing is written into the sites here: the bodies stay as they are
  for (const { entity, body } of writes) if (isObject(body)) collect(model, entity, body, "", sites);
  await lookUp(session, tenantId, sites, cache);
  return cache;
}

/** the error of a body's references that matched no record or several, or undefined when all resolved */
function unresolved(sites: readonly Site[], cache: ReadCache): ServiceError | undefined {
  // each a whole error when it is the only one
  const problems: (ErrorDetail & { readonly code: BadRequestCode })[] = [];
  for (const site of sites) {
    const known = cache.keys(site.target);
    const target = site.target;
    if (isGuid(site.value) && known.guids.has(site.value.toLowerCase())) {
      site.holder[site.key] = site.value.toLowerCase();
      continue;
    }
    const matches = known.byKey.get(String(site.value)) ?? [];
    if (matches.length === 1) site.holder[site.key] = matches[0]!;
    else
      problems.push(
        matches.length === 0
          ? {
              code: "ReferenceNotFound",
              message: `No ${target.name} has Guid or ${target.naturalKey.property} ${JSON.stringify(site.value)}.`,
              target: site.path,
            }
          : {
              code: "ReferenceAmbiguous",
              message: `${matches.length} records of ${target.name} have ${target.naturalKey.property} ${JSON.stringify(site.value)}; reference one by its Guid.`,
              target: site.path,
            },
      );
  }
  if (problems.length === 1) return badRequest(problems[0]!.code, problems[0]!.message, problems[0]!.target);
  if (problems.length > 1)
    return new ServiceError(
      "ValidationError",
      `${problems.length} references could not be resolved.`,
      undefined,
      problems,
    );
  return undefined;
}

/**
 * Replaces every reference in each of many validated bodies (nested values and collection items
 * included) by the Guid of the record it names, in place, with one lookup per target entity for
 * all of them. Returns per body the 400 listing every reference of it that failed, or undefined.
 */
export async function resolveAllReferences(
  session: Session,
  model: Model,
  tenantId: string,
  writes: readonly { readonly entity: AnyEntity; readonly body: Record<string, unknown> }[],
  cache: ReadCache = new ReadCache(),
): Promise<(ServiceError | undefined)[]> {
  const sites = writes.map(({ entity, body }) => {
    const out: Site[] = [];
    collect(model, entity, body, "", out);
    return out;
  });
  await lookUp(session, tenantId, sites.flat(), cache);
  return sites.map((of) => unresolved(of, cache));
}

/**
 * Replaces every reference in `body` (nested values and collection items included) by the Guid
 * of the record it names, in place. Throws a 400 listing every reference that failed.
 */
export async function resolveReferences(
  session: Session,
  model: Model,
  def: AnyEntity,
  tenantId: string,
  body: Record<string, unknown>,
  cache: ReadCache = new ReadCache(),
): Promise<void> {
  const [error] = await resolveAllReferences(session, model, tenantId, [{ entity: def, body }], cache);
  if (error !== undefined) throw error;
}
