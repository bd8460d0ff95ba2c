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
 * as JSON text built in SQL (json-object.ts, for expanded collections).
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

/** a control value as it is made, or its JSON text: text, and the record's Guid and version where they go */
export type Template = readonly (string | { readonly column: "guid" | "version" })[];

const GUID = { column: "guid" } as const;
const VERSION = { column: "version" } as const;

interface ControlPlan {
  /** before the properties: type, id, etag, edit link */
  readonly leading: readonly (readonly [key: string, value: Template])[];
  /** after them: the navigation links */
  readonly trailing: readonly (readonly [key: string, value: Template])[];
}

function controlPlan(entity: AnyEntity, options: EntityOutput): ControlPlan {
  const metadata = options.metadata ?? "none";
  if (metadata === "none") return { leading: [], trailing: [] };
  // etagOf's form, around the version
  const [before, after] = etagOf("\n").split("\n") as [string, string];
  const etag = ["@odata.etag", [before, VERSION, after]] as const;
  if (metadata === "minimal") return { leading: [etag], trailing: [] };
  const url = [`${entity.name}(`, GUID, ")"];
  return {
    leading: [
      ["@odata.type", [`#${options.namespace}.${entity.name}`]],
      ["@odata.id", url],
      etag,
      ["@odata.editLink", url],
    ],
    trailing: navigationOf(entity).map((name) => [`${name}@odata.navigationLink`, [...url, `/${name}`]] as const),
  };
}

/** whether an object of this output needs its record's version (and Guid) for control information */
export const writesControl = (options: EntityOutput): boolean => (options.metadata ?? "none") !== "none";

/** a constant part of a control value, escaped as it stands inside a JSON string */
const escaped = (part: string): string => JSON.stringify(part).slice(1, -1);

/**
 * The control information as JSON text (`"@odata.etag":"W/\"3\""`, members joined by commas,
 * empty when there are none), before and after the properties: each member's escaped text around
 * the places of the Guid and version, which are written in unescaped (a uuid's and a number's text
 * need no escaping in JSON).
 */
export function controlText(entity: AnyEntity, options: EntityOutput): { leading: Template; trailing: Template } {
  const plan = controlPlan(entity, options);
  const compile = (items: ControlPlan["leading"]) =>
    items.flatMap(([key, template], i) => [
      `${i === 0 ? "" : ","}${JSON.stringify(key)}:"`,
      ...template.map((p) => (typeof p === "string" ? escaped(p) : p)),
      '"',
    ]);
  return { leading: compile(plan.leading), trailing: compile(plan.trailing) };
}

/**
 * The control information as members of JSON text built in SQL for the record at `alias` (a
 * relation with `guid` and `row_version`): each member's value as its quoted JSON text, the
 * constants escaped here and sent as parameters, the Guid and version written in unescaped (a
 * uuid's and a number's text need no escaping in JSON), the same text as `controlText`.
 */
export function controlPairs(entity: AnyEntity, alias: string, options: EntityOutput) {
  const plan = controlPlan(entity, options);
  const part = (p: Template[number]): SQL =>
    typeof p === "string"
      ? sql`${escaped(p)}::text`
      : p.column === "guid"
        ? sql`${sql.identifier(alias)}.guid::text`
        : versionText(alias);
  const pairs = (items: ControlPlan["leading"]) =>
    items.map(([key, template]): [string, SQL] => [
      key,
      sql`('"' || ${sql.join(template.map(part), sql` || `)} || '"')`,
    ]);
  return { leading: pairs(plan.leading), trailing: pairs(plan.trailing) };
}
