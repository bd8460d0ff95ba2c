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
 * The characters a word can start with, for the lexer's first-character optimisation: every one
 * but blanks, parentheses, `"`, `;` and `'`. Chevrotain cannot list them from a complement set
 * (`[^…]`), and without them it tries every pattern at every token. Characters past 255 share
 * buckets, so listing all of them is what tells it a word may start with any.
 */
const WORD_START: readonly number[] = Array.from({ length: 0x10000 }, (_, code) => code).filter(
  (code) => !" \t\n\v\f\r()\";'".includes(String.fromCharCode(code)),
);

/** the operator words as a category each: the parser takes the `AND` of either lexer */
export const SearchAnd = createToken({ name: "SearchAnd", pattern: Lexer.NA, label: "'AND'" });
export const SearchOr = createToken({ name: "SearchOr", pattern: Lexer.NA, label: "'OR'" });
export const SearchNot = createToken({ name: "SearchNot", pattern: Lexer.NA, label: "'NOT'" });

/**
 * A word of `pattern` and the operator words of a lexer (mode): an operator is the word itself
 * when more follows it (`ANDROID`), so each lexer's operators name its own word as `longer_alt`.
 */
function wordTokens(where: string, pattern: RegExp): TokenType[] {
  const word = createToken({
    name: `SearchWord${where}`,
    pattern,
    start_chars_hint: [...WORD_START],
    categories: [SearchWordCategory, SearchTermStart],
    label: "a search term",
  });
  const operator = (category: TokenType, image: string) =>
    createToken({
      name: `${category.name}${where}`,
      pattern: image,
      longer_alt: word,
      categories: [category, SearchTermStart],
      label: `'${image}'`,
    });
  return [operator(SearchAnd, "AND"), operator(SearchOr, "OR"), operator(SearchNot, "NOT"), word];
}

/**
 * ABNF `searchWord`: any run of characters but blanks, parentheses, `"` and `;`, not starting
 * with `'` (`O'Brien` is a word, `'…'` the quoted form below)
 */
const WORD = /[^\s()";'][^\s()";]*/;

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

// ---------------------------------------------------------------- a `$search` value

const LParenInSearch = createToken({
  name: "LParenInSearch",
  pattern: "(",
  categories: [SearchOpen, SearchTermStart],
  label: "'('",
});
const RParenInSearch = createToken({ name: "RParenInSearch", pattern: ")", categories: [SearchClose], label: "')'" });

/** the tokens of a `$search` value */
export const searchTokens: TokenType[] = [
  WhiteSpace,
  LParenInSearch,
  RParenInSearch,
  SearchPhrase,
  SearchIncomplete,
  ...wordTokens("", WORD),
];

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

/** ends the nested search before the item's next option: a `;` never stands in a word (ABNF `searchChar`) */
const SearchEnd = createToken({
  name: "SearchEnd",
  pattern: ";",
  pop_mode: true,
  categories: [Semicolon],
  label: "';'",
});

/**
 * A `%3B` right before another option (`%3B$top=`, `%3Btop=`, `%3B@a=`): an encoded `;` between
 * options, as clients that encode the whole `$expand` value write it (the value keeps its `%3B`:
 * queryParameters). Anywhere else in a nested search it is a `;` of the word, as in a `$search`
 * of its own (ABNF `pct-encoded-no-DQUOTE`): `Manager($search=a%3Bb)` searches for a;b.
 */
const BEFORE_OPTION = "%3[Bb](?=[$@]?[A-Za-z_][A-Za-z0-9_]*=)";

const EncodedSearchEnd = createToken({
  name: "EncodedSearchEnd",
  pattern: new RegExp(BEFORE_OPTION),
  pop_mode: true,
  categories: [Semicolon],
  label: "';'",
});

/** a word of a nested search: as WORD, but ending before an encoded `;` that precedes an option */
const NESTED_WORD = new RegExp(`(?!${BEFORE_OPTION})[^\\s()";'](?:(?!${BEFORE_OPTION})[^\\s()";])*`);

/** the tokens of the nested search mode of the `$expand` lexer */
export const nestedSearchTokens: TokenType[] = [
  WhiteSpace,
  GroupOpen,
  GroupClose,
  SearchEnd,
  EncodedSearchEnd,
  SearchPhrase,
  SearchIncomplete,
  ...wordTokens("InExpand", NESTED_WORD),
];

/** every token type above, for the parser's vocabulary */
export const allSearchTokens: TokenType[] = [
  SearchWordCategory,
  SearchTermStart,
  SearchOpen,
  SearchClose,
  SearchAnd,
  SearchOr,
  SearchNot,
  ...searchTokens.slice(1),
  SearchOptionStart,
  ...nestedSearchTokens.slice(1),
];
