/**
 * Field validation of what a write is about to store (issue 35: one validation for every
 * write). A client's body is validated as it comes in; server code (a method body, business
 * logic, a virtual entity's `save`, a seed) sets values after that, so every record of a tree is
 * checked again as it will be stored, by the same validation a PATCH goes through and with the
 * same details: a new record whole, a stored one in the properties whose stored value changes.
 */
import { type ErrorDetail, validationError } from "../errors.js";
import type { PersistedField } from "../model/fields.js";
import type { AnyEntity, Model } from "../model/model.js";
import { perEntity } from "../storage/naming.js";
import { validateWrite } from "../validation/validate-write.js";
import { changedProperties } from "./persist-tree.js";
import { type Body, itemsFirst, type RecordNode } from "./record-tree.js";

/** the properties of an entity a record holds itself (its items are records of their own) */
const ownProperties = perEntity((def) =>
  Object.entries(def.fields as Record<string, PersistedField>).flatMap(([name, field]) =>
    field.kind === "collection" ? [] : [name],
  ),
);

/** the values of a new record, as a create body; properties it does not set are left out */
function created(def: AnyEntity, record: Body): Body {
  const body: Body = {};
  for (const name of ownProperties(def)) if (record[name] !== undefined) body[name] = record[name];
  return body;
}

/**
 * The problems of one record as it will be stored (`at` names it in targets and messages, as
 * `Details[2]`): none when it is valid. Records carry decimals as numbers or exact strings,
 * so both are taken.
 */
export function storedRecordIssues(
  model: Model,
  def: AnyEntity,
  record: Body,
  previous: Body | null,
  at = "",
): readonly ErrorDetail[] {
  const body = previous === null ? created(def, record) : changedProperties(def, record, previous);
  if (previous !== null && Object.keys(body).length === 0) return [];
  const result = validateWrite(model, def, body, previous === null ? "create" : "update", {
    ieee754Compatible: true,
    byServer: true,
    at,
  });
  return result.success ? [] : result.issues;
}

/** Checks every record of a tree as it will be stored; a 400 `ValidationError` with a detail per problem. */
export function checkStored(model: Model, root: RecordNode): void {
  const issues: ErrorDetail[] = [];
  for (const node of itemsFirst(root)) {
    issues.push(...storedRecordIssues(model, node.entity, node.record, node.previous, node.path.slice(0, -1)));
  }
  if (issues.length > 0) throw validationError(issues, "The record cannot be saved.");
}

/**
 * Checks records that are stored as given, as new records (a bulk load), up to the first that
 * breaks a constraint: a 400 `ValidationError` naming each problem by the record's place,
 * `Product[3].Cost`.
 */
export function checkNewRecords(model: Model, def: AnyEntity, records: readonly Body[], label = def.name): void {
  records.forEach((record, i) => {
    const issues = storedRecordIssues(model, def, record, null, `${label}[${i}]`);
    if (issues.length > 0) throw validationError(issues, `${label}[${i}] cannot be stored.`);
  });
}
