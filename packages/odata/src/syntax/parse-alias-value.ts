import { defaultQueryLimits, type QueryLimits } from "../limits.js";
import type { AliasValue } from "./ast.js";
import { runRule } from "./run-rule.js";
import { QuerySyntaxError } from "./syntax-error.js";

/**
 * Parses the value of a parameter alias, `@name=value` in the URL (ABNF `aliasAndValue`): a
 * primitive literal (`'x'`, `5`, `2024-01-31`, `null`, …) or JSON starting with `[` or `{`
 * (`["a","b"]` as the list of `X in @name`). Errors name the alias, e.g. `@p`.
 *
 * @example parseAliasValue("@p", "'O''Brien'") // { kind: "literal", literal: { kind: "string", value: "O'Brien", pos: 0 } }
 */
export function parseAliasValue(alias: string, text: string, limits: QueryLimits = defaultQueryLimits): AliasValue {
  const pos = text.length - text.trimStart().length;
  const first = text[pos];
  if (first !== "[" && first !== "{")
    return { kind: "literal", literal: runRule(alias, text, limits, (p) => p.aliasValue()) };
  if (text.length > limits.maxQueryLength) {
    throw new QuerySyntaxError(alias, limits.maxQueryLength, `longer than ${limits.maxQueryLength} characters`);
  }
  try {
    return { kind: "json", value: JSON.parse(text), pos };
  } catch (error) {
    throw new QuerySyntaxError(alias, pos, "not valid JSON", { cause: error });
  }
}
