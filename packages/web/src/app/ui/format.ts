/** A value as a person reads it, in the page's language: numbers and dates by Intl, booleans as words. */
import { language, t } from "../i18n.js";
import type { PropertyView } from "../service/model-view.js";
import { isNumeric } from "../service/queries.js";

const numbers = new Intl.NumberFormat(language, { maximumFractionDigits: 4 });
const dates = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeZone: "UTC" });
const instants = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" });

export function formatValue(property: PropertyView | undefined, value: unknown): string {
  if (value === null || value === undefined) return "";
  if (property?.kind === "reference" || (typeof value === "object" && !Array.isArray(value))) {
    const record = value as Record<string, unknown>;
    return String(record.Title ?? record.Guid ?? "");
  }
  if (Array.isArray(value)) return value.join(", ");
  if (property?.kind !== "scalar") return String(value);
  if (typeof value === "boolean") return value ? t("yes") : t("no");
  if (isNumeric(property.type) && value !== "") return numbers.format(Number(value));
  if (property.type === "Edm.Date" && typeof value === "string") return dates.format(new Date(`${value}T00:00:00Z`));
  if (property.type === "Edm.DateTimeOffset" && typeof value === "string") return instants.format(new Date(value));
  return String(value);
}
