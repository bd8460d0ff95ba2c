/**
 * The lexer instances every query option and resource path goes through (Chevrotain performance
 * guide: build once, reuse). Lexing stops at the first character no token matches.
 */
import { type ILexerConfig, type IToken, Lexer } from "chevrotain";
import { nestedSearchTokens, SearchOptionStart, searchTokens } from "./search-tokens.js";
import { allTokens, EncodedSemicolon } from "./tokens.js";

const options: ILexerConfig = {
  // offsets are all errors and AST positions need; lines and columns would be wasted work
  positionTracking: "onlyOffset",
  // fail at construction (i.e. in tests) if a pattern defeats the first-character optimisation
  ensureOptimizations: true,
  // halt at the first error: only that one is reported, and recovery is wasted time on hostile input
  recoveryEnabled: false,
};

/** query options and resource path segments */
export const queryLexer = new Lexer(allTokens, options);

/** a `$search` value (search-tokens.ts) */
export const searchLexer = new Lexer(searchTokens, options);

/**
 * an `$expand` value, `%3B` kept encoded (queryParameters): the query tokens and the encoded `;`,
 * and a search mode from `$search=` to the `;` or `)` that ends it
 */
export const expandLexer = new Lexer(
  {
    modes: { expand: [SearchOptionStart, EncodedSemicolon, ...allTokens], search: nestedSearchTokens },
    defaultMode: "expand",
  },
  options,
);

export interface LexingError {
  readonly offset: number;
  readonly problem: string;
}

/** The tokens of `text` up to the first lexing error, and that error if there is one. */
export function tokenize(
  text: string,
  lexer: Lexer = queryLexer,
): { tokens: IToken[]; error: LexingError | undefined } {
  const { tokens, errors } = lexer.tokenize(text);
  const first = errors[0];
  if (first === undefined) return { tokens, error: undefined };
  const offset = first.offset;
  return { tokens, error: { offset, problem: problemAt(text, offset, lexer) } };
}

/** what stops `lexer` at `offset` of `text` */
function problemAt(text: string, offset: number, lexer: Lexer): string {
  const char = text[offset];
  const search = lexer === searchLexer;
  if (char === "'") return search ? "unterminated quoted search" : "unterminated string literal";
  // a phrase of a search, on its own or inside `$expand`
  if (char === '"' && lexer !== queryLexer) return "unterminated phrase";
  if (char === ";" && search) return "a ';' inside a search term is written %3B";
  return `unexpected character ${quoteChar(text, offset)}`;
}

/** `'#'`, or `U+000A` for characters that would not show in a message. */
function quoteChar(text: string, offset: number): string {
  const code = text.codePointAt(offset) ?? 0;
  if (code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0)) {
    return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  }
  return `'${String.fromCodePoint(code)}'`;
}
