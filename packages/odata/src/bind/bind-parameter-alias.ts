/**
 * Parameter aliases (OData 4.01 URL conventions 5.1.1.14.2): `@name` in an expression takes its
 * value from `@name=value` in the URL, or from server code that supplies typed values (a
 * method's filter over its arguments). Server values win over the URL's, so a client cannot
 * change what server code asked for. An alias without a value is a 400 naming it.
 */
import { badRequest } from "@bizdata/core";
import type { AliasValue, Literal, ParameterAliasExpr } from "../syntax/ast.js";
import { invalidExpression } from "./bind-errors.js";
import { bindLiteral, bindValue } from "./bind-literal.js";
import type { BoundExpr } from "./bound-expr.js";

/** the value of each alias in reach, by name without `@` */
export type ParameterAliases = ReadonlyMap<string, AliasValue | { readonly kind: "typed"; readonly value: unknown }>;

/** the URL's aliases with server code's typed values over them */
export function parameterAliases(
  fromUrl: ReadonlyMap<string, AliasValue> | undefined,
  typed: ReadonlyMap<string, unknown> | undefined,
): ParameterAliases {
  const all = new Map<string, AliasValue | { kind: "typed"; value: unknown }>(fromUrl);
  for (const [name, value] of typed ?? []) all.set(name, { kind: "typed", value });
  return all;
}

interface AliasScope {
  readonly option: string;
  readonly parameters: ParameterAliases;
}

function givenValue(scope: AliasScope, alias: ParameterAliasExpr) {
  const value = scope.parameters.get(alias.name);
  if (value === undefined) {
    throw badRequest(
      "MissingParameter",
      `The parameter alias @${alias.name} (in ${scope.option}) has no value; give it one in the query, e.g. @${alias.name}='text'.`,
      `@${alias.name}`,
    );
  }
  return value;
}

/** a JSON scalar as a literal; JSON has no dates or Guids, which arrive as strings and are coerced */
function jsonLiteral(value: unknown): Literal | undefined {
  if (value === null) return { kind: "null", pos: 0 };
  if (typeof value === "boolean") return { kind: "boolean", value, pos: 0 };
  if (typeof value === "string") return { kind: "string", value, pos: 0 };
  if (typeof value === "number" && Number.isFinite(value)) {
    return { kind: Number.isInteger(value) ? "integer" : "decimal", text: String(value), pos: 0 };
  }
  return undefined;
}

/**
 * The value of `@name` as a literal. `against` is what it is compared with, which types a value
 * from server code; a literal from the URL has the type its form gives it, as if written inline.
 */
export function bindAlias(scope: AliasScope, alias: ParameterAliasExpr, against?: BoundExpr): BoundExpr {
  const value = givenValue(scope, alias);
  switch (value.kind) {
    case "literal":
      return bindLiteral(value.literal);
    case "typed":
      return bindValue(scope.option, alias.name, value.value, against);
    case "json":
      throw invalidExpression(
        scope.option,
        `@${alias.name} holds JSON, which can only be the list of 'in' (X in @${alias.name})`,
      );
  }
}

/** `X in @name`: the items of a JSON array (URL) or of an array (server code), typed against `operand` */
export function bindAliasList(scope: AliasScope, alias: ParameterAliasExpr, operand: BoundExpr, maxItems: number) {
  const value = givenValue(scope, alias);
  const items = value.kind === "literal" ? undefined : value.value;
  if (!Array.isArray(items)) {
    throw invalidExpression(scope.option, `@${alias.name} must hold an array to be the list of 'in'`);
  }
  if (items.length > maxItems) {
    throw invalidExpression(scope.option, `the list in @${alias.name} has more than ${maxItems} items`);
  }
  return items.map((item: unknown) => {
    if (value.kind === "typed") return bindValue(scope.option, alias.name, item, operand);
    const literal = jsonLiteral(item);
    if (literal === undefined) {
      throw invalidExpression(scope.option, `the list in @${alias.name} holds strings, numbers, booleans or null only`);
    }
    return bindLiteral(literal);
  });
}
