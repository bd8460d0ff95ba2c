/**
 * Validation keeps decimals as exact strings; records carry them as numbers (`RecordOf` says so,
 * and business logic computes with them). A decimal becomes a number when the number holds it
 * exactly, which is every value a JSON number could have sent; a longer one (only possible with
 * IEEE754Compatible strings) stays an exact string rather than being rounded.
 */
import type { PersistedField } from "../model/fields.js";
import type { AnyEntity } from "../model/model.js";
import { exactDecimal } from "../storage/record-rows.js";

const asNumber = (value: unknown): unknown => {
  if (typeof value !== "string") return value;
  const n = Number(value);
  return Number.isFinite(n) && exactDecimal(n) === value ? n : value;
};

/** converts the decimals of a validated body in place (nested values and collection items too) */
export function decimalsAsNumbers(def: AnyEntity, body: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(body)) {
    const field = Object.hasOwn(def.fields, name) ? (def.fields[name] as PersistedField) : undefined;
    if (field === undefined || value === null || value === undefined) continue;
    if (field.kind === "decimal") body[name] = asNumber(value);
    else if (field.kind === "complex") {
      const nested = value as Record<string, unknown>;
      for (const [member, memberField] of Object.entries(field.fields)) {
        if (memberField.kind === "decimal" && nested[member] !== undefined) nested[member] = asNumber(nested[member]);
      }
    } else if (field.kind === "collection") {
      for (const item of value as Record<string, unknown>[]) decimalsAsNumbers(field.target, item);
    }
  }
}
