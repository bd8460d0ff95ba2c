/**
 * The tokens of `$search` (OData 4.01 ABNF `searchExpr`): words, "phrases", `AND`, `OR`, `NOT`
 * and parentheses. Its words are not the names of the expression grammar (`100%`, `C#`, `O'Brien`
 * are words), so it has lexers of its own: one for a `$search` value, and a mode of the `$expand`
 * lexer entered at `$search=` inside an expand item, where `;` and the item's closing `)` end it.
 * The operators are upper case only: `and`, `or` and `not` are words to search for, and so are
 * `AND`, `OR` and `NOT` where no term follows them to operate on (search-parser.ts).
 */
import { createToken, Lexer, type TokenType } from "chevrotain";
import { RParen, Semicolon, WhiteSpace } from "./tokens.js";

// ---------------------------------------------------------------- categories the parser consumes

export const SearchWordCategory = createToken({
  name: "SearchWordCategory",
  pattern: Lexer.NA,
  label: "a search term",
});
export const SearchOpen = createToken({ name: "SearchOpen", pattern: Lexer.NA, label: "'('" });
/** every token a search term can begin with, the operator words included (they are words where they operate on nothing) */
export const SearchTermStart = createToken({ name: "SearchTermStart", pattern: Lexer.NA, label: "a search term" });
export const SearchClose = createToken({ name: "SearchClose", pattern: Lexer.NA, label: "')'" });

// ---------------------------------------------------------------- shared by both lexers

/** `"…"`, with `\"` and `\\` inside (OData 4.01 `searchPhrase`) */
export const SearchPhrase = createToken({
  name: "SearchPhrase",
  pattern: /"(?:[^"\\]|\\.)*"/,
  categories: [SearchTermStart],
  label: "a phrase",
});

/**
 * any run of characters but blanks, parentheses, `"` and `;`, not starting with `'` (ABNF
 * `searchWord`: `O'Brien` is a word, `'…'` the quoted form below)
 */
export const SearchWord = createToken({
  name: "SearchWord",
  pattern: /[^\s()";'][^\s()";]*/,
  categories: [SearchWordCategory, SearchTermStart],
  label: "a search term",
});

/**
 * ABNF `searchExpr-incomplete`: a whole search value in single quotes (`''` for a quote), which
 * may hold what a search expression may not, such as an unbalanced `"` or `(`: what a search box
 * sends while its user is still typing
 */
export const SearchIncomplete = createToken({
  name: "SearchIncomplete",
  pattern: /'(?:[^']|'')*'/,
  label: "a quoted search",
});

const operator = (name: string, image: string): TokenType =>
  createToken({
    name,
    pattern: new RegExp(image),
    longer_alt: SearchWord,
    categories: [SearchTermStart],
    label: `'${image}'`,
  });

export const SearchAnd = operator("SearchAnd", "AND");
export const SearchOr = operator("SearchOr", "OR");
export const SearchNot = operator("SearchNot", "NOT");

// ---------------------------------------------------------------- a `$search` value

const LParenInSearch = createToken({
  name: "LParenInSearch",
  pattern: "(",
  categories: [SearchOpen, SearchTermStart],
  label: "'('",
});
const RParenInSearch = createToken({ name: "RParenInSearch", pattern: ")", categories: [SearchClose], label: "')'" });

const common = [SearchPhrase, SearchIncomplete, SearchAnd, SearchOr, SearchNot, SearchWord];

/** the tokens of a `$search` value */
export const searchTokens: TokenType[] = [WhiteSpace, LParenInSearch, RParenInSearch, ...common];

// ---------------------------------------------------------------- `$search=` inside `$expand`

/** `$search=` (or `search=`) in an expand item: its value is lexed as a search */
export const SearchOptionStart = createToken({
  name: "SearchOptionStart",
  pattern: /\$?search=/i,
  push_mode: "search",
  label: "'$search='",
});

/** a group inside the nested search: one mode deeper */
const GroupOpen = createToken({
  name: "GroupOpen",
  pattern: "(",
  push_mode: "search",
  categories: [SearchOpen, SearchTermStart],
  label: "'('",
});

/** closes a group, or the expand item when the search is at its own level */
const GroupClose = createToken({
  name: "GroupClose",
  pattern: ")",
  pop_mode: true,
  categories: [SearchClose, RParen],
  label: "')'",
});

/** ends the nested search before the item's next option */
const SearchEnd = createToken({
  name: "SearchEnd",
  pattern: ";",
  pop_mode: true,
  categories: [Semicolon],
  label: "';'",
});

/** the tokens of the nested search mode of the `$expand` lexer */
export const nestedSearchTokens: TokenType[] = [WhiteSpace, GroupOpen, GroupClose, SearchEnd, ...common];

/** every token type above, for the parser's vocabulary */
export const allSearchTokens: TokenType[] = [
  SearchWordCategory,
  SearchTermStart,
  SearchOpen,
  SearchClose,
  ...searchTokens.slice(1),
  SearchOptionStart,
  GroupOpen,
  GroupClose,
  SearchEnd,
];
