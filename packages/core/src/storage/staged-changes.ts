/**
 * What a workflow changed in a staged record, column by column: its after-image against the base
 * image it was staged from (BASE_IMAGE_COLUMN). The commit's conflict check and merge and the
 * re-basing of a staged change all ask this same question.
 */
import { type SQL, sql } from "drizzle-orm";
import { BASE_IMAGE_COLUMN } from "./staged-tables.js";

const id = (name: string) => sql.identifier(name);

/** the column's value as JSON text, comparable with the same column in the stored base image */
export const asJson = (alias: string, column: string): SQL =>
  sql`coalesce(to_json(${id(alias)}.${id(column)})::text, 'null')`;

/** the column's value in the base image of the staged row `s` */
export const inBaseImage = (column: string): SQL =>
  sql`coalesce((s.${id(BASE_IMAGE_COLUMN)} -> ${column})::text, 'null')`;

/** whether the workflow changed `column` of the staged row `s` (after-image against its base image) */
export const stagedChanged = (column: string): SQL => sql`${asJson("s", column)} <> ${inBaseImage(column)}`;
