/**
 * The token vocabulary of OData query options and resource paths (OData 4.01 ABNF, part 2 of
 * the URL conventions). Order in `allTokens` matters: the lexer takes the first pattern that
 * matches, so the fixed-shape literals (GUID, date-time, date) come before numbers and names,
 * and every keyword carries `longer_alt: Identifier` so `Order`, `equipment` or `indexof` lex as
 * names rather than as `or`, `eq` or `in` followed by the rest. Keywords match in any case:
 * quoted strings of the OData 4.01 ABNF are case-insensitive (RFC 5234), so `EQ`, `And`, `TRUE`
 * and `$FILTER` are what `eq`, `and`, `true` and `$filter` are. The parser reads a keyword by its
 * token type, never by its image.
 */
import { createToken, Lexer, type TokenType } from "chevrotain";

// ---------------------------------------------------------------- categories (no pattern)

/** A segment after `/` in an expression path: any name, or `$count`. */
export const Segment = createToken({ name: "Segment", pattern: Lexer.NA, label: "a name" });

/** Anything usable as a name in `$select`/`$expand` paths, after `/`, or as an entity or method name. */
export const Word = createToken({ name: "Word", pattern: Lexer.NA, categories: [Segment], label: "a name" });

/** The first segment of an expression path or the name of a function: a name or `$it`. */
export const PathStart = createToken({ name: "PathStart", pattern: Lexer.NA, label: "a name" });

/** Every literal; the parser tells them apart by token type in one action. */
export const PrimitiveLiteral = createToken({ name: "PrimitiveLiteral", pattern: Lexer.NA, label: "a literal" });

/** `eq ne gt ge lt le has and or add sub mul div divby mod`: binary operators of `commonExpr`. */
export const BinaryOperator = createToken({ name: "BinaryOperator", pattern: Lexer.NA, label: "an operator" });

/** `asc` / `desc` after an `$orderby` expression. */
export const SortDirection = createToken({ name: "SortDirection", pattern: Lexer.NA, label: "'asc' or 'desc'" });

/** `true` / `false`, the values of `$count`. */
export const BooleanLiteral = createToken({ name: "BooleanLiteral", pattern: Lexer.NA, label: "true or false" });

// ---------------------------------------------------------------- names

export const Identifier = createToken({
  name: "Identifier",
  // OData simple identifier restricted to ASCII (letters, digits, underscore)
  pattern: /[A-Za-z_][A-Za-z0-9_]*/,
  categories: [Word, PathStart],
  label: "a name",
});

/** `$count`, `$filter`, …: `$`-names the grammar knows get their own token; others are `DollarName`. */
export const DollarName = createToken({
  name: "DollarName",
  pattern: /\$[A-Za-z_][A-Za-z0-9_]*/,
  label: "a $-option",
});

/** `word`, matched in any case */
const anyCase = (word: string) => new RegExp(word.replace("$", "\\$"), "i");

const dollar = (name: string, image: string, categories: TokenType[] = []): TokenType =>
  createToken({ name, pattern: anyCase(image), longer_alt: DollarName, categories, label: `'${image}'` });

/**
 * The name of a query option inside `$expand(…)`: `$select`, or `select` without the `$` (OData
 * 4.01 makes it optional), one category per option.
 */
const optionName = (option: string): TokenType =>
  createToken({ name: `${option}OptionName`, pattern: Lexer.NA, label: `'$${option}'` });

export const SelectOption = optionName("select");
export const FilterOption = optionName("filter");
export const OrderByOption = optionName("orderby");
export const ExpandOption = optionName("expand");
export const TopOption = optionName("top");
export const SkipOption = optionName("skip");
export const CountOption = optionName("count");
export const ComputeOption = optionName("compute");
export const ApplyOption = optionName("apply");

export const DollarCount = dollar("DollarCount", "$count", [Segment, CountOption]);
export const DollarIt = dollar("DollarIt", "$it", [PathStart]);
export const DollarFilter = dollar("DollarFilter", "$filter", [FilterOption]);
export const DollarOrderBy = dollar("DollarOrderBy", "$orderby", [OrderByOption]);
export const DollarSelect = dollar("DollarSelect", "$select", [SelectOption]);
export const DollarExpand = dollar("DollarExpand", "$expand", [ExpandOption]);
export const DollarTop = dollar("DollarTop", "$top", [TopOption]);
export const DollarSkip = dollar("DollarSkip", "$skip", [SkipOption]);
export const DollarCompute = dollar("DollarCompute", "$compute", [ComputeOption]);
export const DollarApply = dollar("DollarApply", "$apply", [ApplyOption]);

/** ABNF `parameterAlias`: `@name`, a value given elsewhere in the URL or by server code. */
export const ParameterAlias = createToken({
  name: "ParameterAlias",
  pattern: /@[A-Za-z_][A-Za-z0-9_]*/,
  label: "a parameter alias",
});

// ---------------------------------------------------------------- keywords

/**
 * Hard keywords are operators and literal words: never a property name where an operand is
 * expected, but still a `Word` so `A/eq` or `$select=in` work.
 */
const keyword = (name: string, image: string, categories: TokenType[] = []): TokenType =>
  createToken({
    name,
    pattern: anyCase(image),
    longer_alt: Identifier,
    categories: [Word, ...categories],
    label: `'${image}'`,
  });

/**
 * Soft keywords only mean something at one place (`asc` after an orderby expression, `with`/`as`
 * in `$apply`/`$compute`, the transformation names): they are also an `Identifier`, so a
 * property called `filter` or `desc` still parses as a path.
 */
const softKeyword = (name: string, image: string, categories: TokenType[] = []): TokenType =>
  createToken({
    name,
    pattern: anyCase(image),
    longer_alt: Identifier,
    categories: [Identifier, ...categories],
    label: `'${image}'`,
  });

export const And = keyword("And", "and", [BinaryOperator]);
export const Or = keyword("Or", "or", [BinaryOperator]);
export const Eq = keyword("Eq", "eq", [BinaryOperator]);
export const Ne = keyword("Ne", "ne", [BinaryOperator]);
export const Gt = keyword("Gt", "gt", [BinaryOperator]);
export const Ge = keyword("Ge", "ge", [BinaryOperator]);
export const Lt = keyword("Lt", "lt", [BinaryOperator]);
export const Le = keyword("Le", "le", [BinaryOperator]);
export const Has = keyword("Has", "has", [BinaryOperator]);
export const Add = keyword("Add", "add", [BinaryOperator]);
export const Sub = keyword("Sub", "sub", [BinaryOperator]);
export const Mul = keyword("Mul", "mul", [BinaryOperator]);
// `divby` before `div`: with `div` first, `divby` would lex as `div` + … (longer_alt is Identifier)
export const DivBy = keyword("DivBy", "divby", [BinaryOperator]);
export const Div = keyword("Div", "div", [BinaryOperator]);
export const Mod = keyword("Mod", "mod", [BinaryOperator]);
export const In = keyword("In", "in");
export const Not = keyword("Not", "not");

export const True = keyword("True", "true", [PrimitiveLiteral, BooleanLiteral]);
export const False = keyword("False", "false", [PrimitiveLiteral, BooleanLiteral]);
export const Null = keyword("Null", "null", [PrimitiveLiteral]);

// `asc` before `as` for the same reason as `divby`
export const Asc = softKeyword("Asc", "asc", [SortDirection]);
export const Desc = softKeyword("Desc", "desc", [SortDirection]);
export const As = softKeyword("As", "as");
export const With = softKeyword("With", "with");
export const Filter = softKeyword("Filter", "filter", [FilterOption]);
export const Aggregate = softKeyword("Aggregate", "aggregate");
export const GroupBy = softKeyword("GroupBy", "groupby");
// option names without `$` inside `$expand(…)`; `filter` is the one above
export const SelectWord = softKeyword("SelectWord", "select", [SelectOption]);
export const OrderByWord = softKeyword("OrderByWord", "orderby", [OrderByOption]);
export const ExpandWord = softKeyword("ExpandWord", "expand", [ExpandOption]);
export const TopWord = softKeyword("TopWord", "top", [TopOption]);
export const SkipWord = softKeyword("SkipWord", "skip", [SkipOption]);
export const CountWord = softKeyword("CountWord", "count", [CountOption]);
export const ComputeWord = softKeyword("ComputeWord", "compute", [ComputeOption]);
export const ApplyWord = softKeyword("ApplyWord", "apply", [ApplyOption]);

// ---------------------------------------------------------------- literals

/** `'…'` with `''` for a quote. The alternatives are disjoint by first character: no backtracking trap. */
export const StringLiteral = createToken({
  name: "StringLiteral",
  pattern: /'(?:[^']|'')*'/,
  categories: [PrimitiveLiteral],
  label: "a string",
});

/** Bare 8-4-4-4-12 GUID; before numbers and names, which it would otherwise be lexed as. */
export const GuidLiteral = createToken({
  name: "GuidLiteral",
  pattern: /[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/,
  categories: [PrimitiveLiteral],
  label: "a GUID",
});

/**
 * ABNF dateTimeOffsetValue: seconds and fraction optional, `Z` or a `±hh:mm` offset required.
 * Field ranges are checked in the parser so `2024-13-01` gets a precise message.
 */
export const DateTimeOffsetLiteral = createToken({
  name: "DateTimeOffsetLiteral",
  pattern: /\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,12})?)?(?:[Zz]|[+-]\d{2}:\d{2})/,
  categories: [PrimitiveLiteral],
  label: "a date-time",
});

/** A date-time without `Z`/offset: lexed only to say what is missing, instead of "found 'T10'". */
export const DateTimeWithoutOffset = createToken({
  name: "DateTimeWithoutOffset",
  pattern: /\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,12})?)?/,
  categories: [PrimitiveLiteral],
  label: "a date-time",
});

/**
 * ABNF `timeOfDayValue`: `hh:mm[:ss[.fff…]]`, before numbers (which would take its hours). Field
 * ranges are checked in the parser, as for dates.
 */
export const TimeOfDayLiteral = createToken({
  name: "TimeOfDayLiteral",
  pattern: /\d{2}:\d{2}(?::\d{2}(?:\.\d{1,12})?)?/,
  categories: [PrimitiveLiteral],
  label: "a time of day",
});

/**
 * ABNF `duration`: `duration'P1DT2H'` (the prefix in any case). Anything between the quotes is
 * lexed so that the parser can say what is wrong with it; `'P1D'` without the prefix is a string,
 * which the binder reads as a duration where one is compared with it.
 */
export const DurationLiteral = createToken({
  name: "DurationLiteral",
  pattern: /duration'[^']*'/i,
  categories: [PrimitiveLiteral],
  label: "a duration",
});

export const DateLiteral = createToken({
  name: "DateLiteral",
  pattern: /\d{4}-\d{2}-\d{2}/,
  categories: [PrimitiveLiteral],
  label: "a date",
});

/**
 * Integers and decimals in one token (the parser looks for `.`/`e` to tell them apart). The sign
 * belongs to the literal as in the ABNF (`int64Value = [ sign ] 1*19DIGIT`, `sign = "+" / "-"`),
 * so `-5` and `+5` are numbers and `-Cost` a negation.
 */
export const NumberLiteral = createToken({
  name: "NumberLiteral",
  pattern: /[-+]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/,
  categories: [PrimitiveLiteral],
  label: "a number",
});

// ---------------------------------------------------------------- punctuation

export const LParen = createToken({ name: "LParen", pattern: "(", label: "'('" });
export const RParen = createToken({ name: "RParen", pattern: ")", label: "')'" });
export const Comma = createToken({ name: "Comma", pattern: ",", label: "','" });
export const Slash = createToken({ name: "Slash", pattern: "/", label: "'/'" });
export const Semicolon = createToken({ name: "Semicolon", pattern: ";", label: "';'" });
/**
 * `%3B` in an `$expand` value, which keeps it encoded (queryParameters): the `;` between an
 * item's options as clients that encode the whole value write it. Only the expand lexer has it;
 * inside a quoted string it is part of the string, which decodes it.
 */
export const EncodedSemicolon = createToken({
  name: "EncodedSemicolon",
  pattern: /%3[Bb]/,
  categories: [Semicolon],
  label: "';'",
});
export const Equals = createToken({ name: "Equals", pattern: "=", label: "'='" });
export const Colon = createToken({ name: "Colon", pattern: ":", label: "':'" });
export const Star = createToken({ name: "Star", pattern: "*", label: "'*'" });
export const Minus = createToken({ name: "Minus", pattern: "-", label: "'-'" });
/** joins a namespace and a name (`bizdata.Post`); a number's point is part of the number */
export const Dot = createToken({ name: "Dot", pattern: ".", label: "'.'" });

/** Values arrive percent-decoded (`+` already turned into a space by the caller): only space and tab. */
export const WhiteSpace = createToken({ name: "WhiteSpace", pattern: /[ \t]+/, group: Lexer.SKIPPED });

export const allTokens: TokenType[] = [
  WhiteSpace,
  StringLiteral,
  GuidLiteral,
  DateTimeOffsetLiteral,
  DateTimeWithoutOffset,
  DateLiteral,
  TimeOfDayLiteral,
  NumberLiteral,
  DurationLiteral,
  LParen,
  RParen,
  Comma,
  Slash,
  Semicolon,
  Equals,
  Colon,
  Star,
  Minus,
  Dot,
  DollarCount,
  DollarIt,
  DollarFilter,
  DollarOrderBy,
  DollarSelect,
  DollarExpand,
  DollarTop,
  DollarSkip,
  DollarCompute,
  DollarApply,
  DollarName,
  ParameterAlias,
  // before `or`, which would otherwise take the start of `orderby`
  SelectWord,
  OrderByWord,
  ExpandWord,
  TopWord,
  SkipWord,
  CountWord,
  ComputeWord,
  ApplyWord,
  And,
  Or,
  Eq,
  Ne,
  Gt,
  Ge,
  Lt,
  Le,
  Has,
  Add,
  Sub,
  Mul,
  DivBy,
  Div,
  Mod,
  In,
  Not,
  True,
  False,
  Null,
  Asc,
  Desc,
  As,
  With,
  Filter,
  Aggregate,
  GroupBy,
  Identifier,
  Segment,
  Word,
  PathStart,
  PrimitiveLiteral,
  BinaryOperator,
  SortDirection,
  BooleanLiteral,
  SelectOption,
  FilterOption,
  OrderByOption,
  ExpandOption,
  TopOption,
  SkipOption,
  CountOption,
  ComputeOption,
  ApplyOption,
];
