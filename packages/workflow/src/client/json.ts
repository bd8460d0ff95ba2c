/** A JSON object (not an array, not null), as read from a response body. */
export const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** a string value, or undefined for anything else */
export const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
