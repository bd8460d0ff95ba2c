/**
 * Natural-key references on writes (spec 4.3): a reference may be given as the target's Guid or
 * as its natural key. A GUID-shaped string is tried as a Guid first; no match is
 * `ReferenceNotFound`, several matches `ReferenceAmbiguous`, with the property path as target.
 * Lookups are batched: one query per target entity per call, never one per value.
 */
import { sql } from "drizzle-orm";
import { badRequest, type ErrorDetail, ServiceError } from "../errors.js";
import type { PersistedField } from "../model/fields.js";
import type { AnyEntity, Model } from "../model/model.js";
import type { Session } from "../storage/database.js";
import { columnOf, TENANT_COLUMN, tableName } from "../storage/naming.js";

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isGuid = (value: unknown): value is string => typeof value === "string" && GUID.test(value);

// Map.groupBy arrives with Node 21
function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

interface Site {
  readonly target: AnyEntity;
  readonly value: string | number | boolean;
  readonly path: string;
  readonly set: (guid: string) => void;
}

/** Every reference value in a (validated) write body, with where it sits. */
function collect(model: Model, def: AnyEntity, body: Record<string, unknown>, prefix: string, out: Site[]): void {
  for (const [name, value] of Object.entries(body)) {
    const field = Object.hasOwn(def.fields, name) ? (def.fields[name] as PersistedField) : undefined;
    if (field === undefined || value === null || value === undefined) continue;
    const path = `${prefix}${name}`;
    if (field.kind === "reference") {
      out.push({ target: model.entity(field.target)!, value: value as string, path, set: (g) => (body[name] = g) });
    } else if (field.kind === "complex") {
      const nested = value as Record<string, unknown>;
      for (const [member, memberField] of Object.entries(field.fields)) {
        const v = nested[member];
        if (memberField.kind !== "reference" || v === null || v === undefined) continue;
        out.push({
          target: model.entity(memberField.target)!,
          value: v as string,
          path: `${path}.${member}`,
          set: (g) => (nested[member] = g),
        });
      }
    } else if (field.kind === "collection") {
      (value as Record<string, unknown>[]).forEach((item, i) => {
        collect(model, field.target, item, `${path}[${i}].`, out);
      });
    }
  }
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
): Promise<void> {
  const sites: Site[] = [];
  collect(model, def, body, "", sites);
  if (sites.length === 0) return;
  const byTarget = groupBy(sites, (s) => s.target);
  const problems: ErrorDetail[] = [];
  for (const [target, targetSites] of byTarget) {
    const nk = columnOf(target, [target.naturalKey.property])!;
    const guids = [
      ...new Set(targetSites.filter((s) => isGuid(s.value)).map((s) => (s.value as string).toLowerCase())),
    ];
    const keys = [...new Set(targetSites.map((s) => String(s.value)))];
    const table = sql.identifier(tableName(target));
    const keyColumn = sql.identifier(nk.column);
    const rows = await session.query<{ guid: string; key: string | null }>(
      sql`SELECT guid, ${keyColumn}::text AS key FROM ${table} WHERE ${sql.identifier(TENANT_COLUMN)} = ${tenantId}
          AND (guid = ANY(${sql.param(guids)}::uuid[]) OR ${keyColumn}::text = ANY(${sql.param(keys)}::text[]))`,
    );
    const byGuid = new Set(rows.map((r) => r.guid));
    const byKey = groupBy(rows, (r) => r.key);
    for (const site of targetSites) {
      if (isGuid(site.value) && byGuid.has(site.value.toLowerCase())) {
        site.set(site.value.toLowerCase());
        continue;
      }
      const matches = byKey.get(String(site.value)) ?? [];
      if (matches.length === 1) site.set(matches[0]!.guid);
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
  }
  if (problems.length === 1) throw badRequest(problems[0]!.code, problems[0]!.message, problems[0]!.target);
  if (problems.length > 1)
    throw new ServiceError(
      400,
      "ValidationError",
      `${problems.length} references could not be resolved.`,
      undefined,
      problems,
    );
}
