/**
 * Drives the shared parser for one entry point: lex, parse, and turn every failure into a
 * `QuerySyntaxError` for the option. Nothing else may escape to the host: a Chevrotain error or a
 * bug in an action is reported as a syntax error at position 0 (with the original as `cause`).
 */
import type { IToken, Lexer } from "chevrotain";
import type { QueryLimits } from "../limits.js";
import { tokenize } from "./lexer.js";
import { type ODataParser, parser } from "./odata-parser.js";
import { QuerySyntaxError } from "./syntax-error.js";

export function runRule<T>(
  option: string,
  text: string,
  limits: QueryLimits,
  rule: (p: ODataParser) => T,
  lexer?: Lexer,
  deferredEscapes = false,
): T {
  if (text.length > limits.maxQueryLength) {
    throw new QuerySyntaxError(option, limits.maxQueryLength, `longer than ${limits.maxQueryLength} characters`);
  }
  const { tokens, error } = tokenize(text, lexer);
  if (error === undefined) {
    try {
      return parse(option, tokens, text.length, limits, rule, deferredEscapes);
    } catch (parseError) {
      throw asSyntaxError(parseError, option);
    }
  }

  // Report the leftmost problem: in `Name eq 'O'Brien'` the lexer trips over the last quote, but
  // the parser already fails at `Brien`. Parsing the tokens before the lexing error finds that;
  // running out of tokens there (an error at `error.offset`) means the lexing error is first.
  try {
    parse(option, tokens, error.offset, limits, rule, deferredEscapes);
  } catch (parseError) {
    if (parseError instanceof QuerySyntaxError && parseError.position < error.offset) throw parseError;
  }
  throw new QuerySyntaxError(option, error.offset, error.problem);
}

/** Runs `rule` over `tokens`; `end` is the offset reported for running out of tokens. */
function parse<T>(
  option: string,
  tokens: IToken[],
  end: number,
  limits: QueryLimits,
  rule: (p: ODataParser) => T,
  deferredEscapes: boolean,
): T {
  parser.begin(tokens, option, end, limits, deferredEscapes);
  const result = rule(parser);
  const error = parser.errors[0];
  if (error !== undefined) {
    // EOF has a NaN offset: running out of tokens is an error at the end
    const offset = Number.isNaN(error.token.startOffset) ? end : error.token.startOffset;
    throw new QuerySyntaxError(option, offset, error.message);
  }
  return result;
}

function asSyntaxError(error: unknown, option: string): QuerySyntaxError {
  if (error instanceof QuerySyntaxError) return error;
  // the depth limits stop recursion long before this; kept as a last line of defence
  const problem = error instanceof RangeError ? "too deeply nested" : "could not be parsed";
  return new QuerySyntaxError(option, 0, problem, { cause: error });
}
