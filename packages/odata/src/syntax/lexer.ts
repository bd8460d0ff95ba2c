/**
 * The one lexer instance every query option and resource path goes through (Chevrotain
 * performance guide: build once, reuse). Lexing stops at the first character no token matches.
 */
import { type IToken, Lexer } from "chevrotain";
import { allTokens } from "./tokens.js";

const lexer = new Lexer(allTokens, {
  // offsets are all errors and AST positions need; lines and columns would be wasted work
  positionTracking: "onlyOffset",
  // fail at construction (i.e. in tests) if a pattern defeats the first-character optimisation
  ensureOptimizations: true,
  // halt at the first error: only that one is reported, and recovery is wasted time on hostile input
  recoveryEnabled: false,
});

export interface LexingError {
  readonly offset: number;
  readonly problem: string;
}

/** The tokens of `text` up to the first lexing error, and that error if there is one. */
export function tokenize(text: string): { tokens: IToken[]; error: LexingError | undefined } {
  const { tokens, errors } = lexer.tokenize(text);
  const first = errors[0];
  if (first === undefined) return { tokens, error: undefined };
  const offset = first.offset;
  const problem =
    text[offset] === "'" ? "unterminated string literal" : `unexpected character ${quoteChar(text, offset)}`;
  return { tokens, error: { offset, problem } };
}

/** `'#'`, or `U+000A` for characters that would not show in a message. */
function quoteChar(text: string, offset: number): string {
  const code = text.codePointAt(offset) ?? 0;
  if (code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0)) {
    return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  }
  return `'${String.fromCodePoint(code)}'`;
}
