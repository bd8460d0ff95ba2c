/**
 * Chevrotain's default messages name token types (`--> RParen <--`); these say what a client
 * typed and what would have been valid there, e.g. `expected ')' but found 'eq'`.
 */
import { EOF, type IParserErrorMessageProvider, type IToken, type TokenType } from "chevrotain";

/** What some rules expect, in words, instead of a list of every token that may start them. */
const expectedByRule: Readonly<Record<string, string>> = {
  unaryExpr: "an expression",
  commonExpr: "an expression",
  boolCommonExpr: "an expression",
  // the AT_LEAST_ONE_SEP of these rules reports its own (early exit) error
  orderby: "an expression",
  compute: "an expression",
  listExpr: "an expression",
  expandItem: "$select, $filter, $orderby, $top, $skip, $count, $expand, $compute, $search or $apply",
  expandOption: "$select, $filter, $orderby, $top, $skip, $count, $expand, $compute, $search or $apply",
  search: "a search term",
  searchExpr: "a search term",
  searchAnd: "a search term",
  searchNot: "a search term",
  applyTrafo: "filter(…), aggregate(…) or groupby(…)",
  aggregateTrafo: "$count or an expression",
  aggregateExpr: "$count or an expression",
  pathSegment: "a name",
  segmentArg: "a key or name=value",
  keyValue: "a literal value",
};

/** What may follow a complete value of each entry rule. */
const followByEntryRule: Readonly<Record<string, string>> = {
  boolCommonExpr: "an operator or end of input",
  orderby: "',', 'asc', 'desc' or end of input",
  select: "',' or end of input",
  expand: "',' or end of input",
  compute: "',' or end of input",
  applyExpr: "'/' or end of input",
  search: "a search term, 'AND', 'OR' or end of input",
};

export const errorMessageProvider: IParserErrorMessageProvider = {
  buildMismatchTokenMessage({ expected, actual }) {
    return `expected ${labelOf(expected)} but found ${describeToken(actual)}`;
  },
  buildNotAllInputParsedMessage({ firstRedundant, ruleName }) {
    return `expected ${followByEntryRule[ruleName] ?? "end of input"} but found ${describeToken(firstRedundant)}`;
  },
  buildNoViableAltMessage({ expectedPathsPerAlt, actual, ruleName }) {
    const expected = expectedByRule[ruleName] ?? listFirstTokens(expectedPathsPerAlt.flat());
    return `expected ${expected} but found ${describeFirst(actual)}`;
  },
  buildEarlyExitMessage({ expectedIterationPaths, actual, ruleName }) {
    const expected = expectedByRule[ruleName] ?? listFirstTokens(expectedIterationPaths);
    return `expected ${expected} but found ${describeFirst(actual)}`;
  },
};

function labelOf(type: TokenType): string {
  return type.LABEL ?? type.name;
}

/** `'a', 'b' or 'c'` from the first token of each possible path. */
function listFirstTokens(paths: readonly TokenType[][]): string {
  const labels = [...new Set(paths.map((path) => (path[0] === undefined ? "end of input" : labelOf(path[0]))))];
  if (labels.length <= 1) return labels[0] ?? "end of input";
  return `${labels.slice(0, -1).join(", ")} or ${labels[labels.length - 1]}`;
}

function describeFirst(tokens: readonly IToken[]): string {
  const token = tokens[0];
  return token === undefined ? "end of input" : describeToken(token);
}

/** The token as the client wrote it, shortened so a long string literal does not flood the message. */
export function describeToken(token: IToken): string {
  if (token.tokenType === EOF) return "end of input";
  const image = token.image.length > 24 ? `${token.image.slice(0, 21)}…` : token.image;
  return `'${image}'`;
}
