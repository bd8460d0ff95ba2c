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

/** spec 4.4 rules 1-2: virtual properties cannot feed `$filter`, `$orderby`, `$apply`, `$compute` */
export const virtualNotAllowed = (entity: string, name: string, option: string): ServiceError =>
  badRequest(
    "VirtualPropertyNotAllowed",
    `${entity}.${name} is computed, not persisted, so it cannot be used in ${option}; it can only be selected ($select, $expand).`,
    option,
  );

/** a well-formed expression that does not make sense for the model (types, functions, shapes) */
export const invalidExpression = (option: string, message: string): ServiceError =>
  badRequest("InvalidExpression", `${message} (in ${option})`, option);
