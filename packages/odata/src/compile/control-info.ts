/**
 * The control information of an entity object (OData JSON Format 4.01 §4.5), by metadata level
 * (§3.1): `none` has none; `minimal` the ETag (`@odata.etag`, §4.5.10); `full` also the type,
 * the id, the edit link and a navigation link per navigation property (§4.5.3, §4.5.8, §4.5.9,
 * §4.5.11). Links are relative (§4.3): the context URL (`{base}/$metadata#…`) is their base, so
 * `Product(<guid>)` is `{base}/Product(<guid>)`. Names keep the `@odata.` prefix of OData 4.0,
 * which 4.01 clients read as well, as the `@odata.count` and `@odata.nextLink` the service
 * has always written.
 *
 * The same information is written two ways: from flat row values in TypeScript (row-plan.ts) and
 * as `json_build_object` pairs in SQL (json-object.ts, for expanded collections).
 */
import { type AnyEntity, type PersistedField, versionText } from "@bizdata/core";
import { type SQL, sql } from "drizzle-orm";
import { etagOf } from "../conditional/entity-tags.js";
import type { OutputOptions } from "./output-value.js";

export type MetadataLevel = "none" | "minimal" | "full";

/** what an entity object is written with: its values' form, and the control information around them */
export interface EntityOutput extends OutputOptions {
  /** default `none`: statements that serve no client (a method's lookups) write no control information */
  readonly metadata?: MetadataLevel;
  /** the schema namespace (`@odata.type`), at `full` */
  readonly namespace?: string;
}

/** the navigation properties of an entity: its references and its owned collections */
const navigationOf = (entity: AnyEntity): string[] =>
  Object.entries(entity.fields as Record<string, PersistedField>).flatMap(([name, field]) =>
    field.kind === "reference" || field.kind === "collection" ? [name] : [],
  );

interface ControlPlan {
  /** before the properties: type, id, etag, edit link */
  readonly leading: readonly [key: string, value: (guid: string, version: string) => string][];
  /** after them: the navigation links */
  readonly trailing: readonly [key: string, value: (guid: string) => string][];
}

function controlPlan(entity: AnyEntity, options: EntityOutput): ControlPlan {
  const metadata = options.metadata ?? "none";
  if (metadata === "none") return { leading: [], trailing: [] };
  const etag: ControlPlan["leading"][number] = ["@odata.etag", (_, version) => etagOf(version)];
  if (metadata === "minimal") return { leading: [etag], trailing: [] };
  const url = (guid: string) => `${entity.name}(${guid})`;
  const type = `#${options.namespace}.${entity.name}`;
  return {
    leading: [["@odata.type", () => type], ["@odata.id", url], etag, ["@odata.editLink", url]],
    trailing: navigationOf(entity).map((name) => [`${name}@odata.navigationLink`, (guid) => `${url(guid)}/${name}`]),
  };
}

/** whether an object of this output needs its record's version (and Guid) for control information */
export const writesControl = (options: EntityOutput): boolean => (options.metadata ?? "none") !== "none";

/** the control information as JSON text members (`"@odata.etag":"W/\"3\""`), before and after the properties */
export function controlText(entity: AnyEntity, options: EntityOutput) {
  const plan = controlPlan(entity, options);
  const member = (key: string, value: string) => `${JSON.stringify(key)}:${JSON.stringify(value)}`;
  return {
    leading: (guid: string, version: string) => plan.leading.map(([key, value]) => member(key, value(guid, version))),
    trailing: (guid: string) => plan.trailing.map(([key, value]) => member(key, value(guid))),
  };
}

/**
 * The control information as `json_build_object` pairs for the record at `alias` (a relation
 * with `guid` and `row_version`): the same text, built by PostgreSQL from the row, with every
 * constant a parameter. Placeholders stand for the Guid and version while the text is planned.
 */
export function controlPairs(entity: AnyEntity, alias: string, options: EntityOutput) {
  const plan = controlPlan(entity, options);
  const GUID = "\u0000guid\u0000";
  const VERSION = "\u0000version\u0000";
  const guid = sql`${sql.identifier(alias)}.guid::text`;
  // a planned text with the placeholders swapped for the row's columns, the rest as parameters
  const fromRow = (text: string): SQL => {
    const parts = text.split(/(\u0000guid\u0000|\u0000version\u0000)/).filter((p) => p !== "");
    const args = parts.map((p) => (p === GUID ? guid : p === VERSION ? versionText(alias) : sql`${p}::text`));
    return args.length === 1 ? args[0]! : sql`concat(${sql.join(args, sql`, `)})`;
  };
  return {
    leading: plan.leading.map(([key, value]) => [key, fromRow(value(GUID, VERSION))] as [string, SQL]),
    trailing: plan.trailing.map(([key, value]) => [key, fromRow(value(GUID))] as [string, SQL]),
  };
}
