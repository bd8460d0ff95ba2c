import { badRequest, type ServiceError } from "@bizdata/core";

/**
 * An unknown or wrongly-cased name in a query option (api-conventions: "400 naming it"). A
 * case-insensitive match is suggested, because names are case sensitive (spec 2.1).
 */
export function unknownProperty(entity: string, name: string, option: string, known: Iterable<string>): ServiceError {
  const lower = name.toLowerCase();
  const suggestion = [...known].find((k) => k.toLowerCase() === lower);
  return badRequest(
    "UnknownProperty",
    `${entity} has no property "${name}" (in ${option})${suggestion ? `; names are case sensitive: did you mean "${suggestion}"?` : "."}`,
    option,
  );
}
