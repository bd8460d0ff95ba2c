/**
 * Validation keeps decimals as exact strings; records carry them as numbers (`RecordOf` says so,
 * and business logic computes with them). A decimal becomes a number when the number holds it
 * exactly, which is every value a JSON number could have sent; a longer one (only possible with
 * IEEE754Compatible strings) stays an exact string rather than being rounded.
 */
import type { AnyEntity } from "../model/model.js";
import { exactDecimal, fieldsHolding } from "../storage/record-rows.js";

const asNumber = (value: unknown): unknown => {
  if (typeof value !== "string") return value;
  const n = Number(value);
  return Number.isFinite(n) && exactDecimal(n) === value ? n : value;
};

const decimalHolders = fieldsHolding("decimal");

/** converts the decimals of a validated body in place (nested values and collection items too) */
export function decimalsAsNumbers(def: AnyEntity, body: Record<string, unknown>): void {
  // every record of a write passes here: only the properties that can hold a decimal are looked at
  for (const [name, field] of decimalHolders(def)) {
    const value = Object.hasOwn(body, name) ? body[name] : undefined;
    if (value === null || value === undefined) continue;
    if (field.kind === "decimal") body[name] = asNumber(value);
    else if (field.kind === "complex") {
      const nested = value as Record<string, unknown>;
      for (const member in field.fields) {
        if (field.fields[member]!.kind === "decimal" && nested[member] !== undefined)
          nested[member] = asNumber(nested[member]);
      }
    } else if (field.kind === "collection") {
      for (const item of value as Record<string, unknown>[]) decimalsAsNumbers(field.target, item);
    }
  }
}
