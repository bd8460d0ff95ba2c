/**
 * The syntax tree of an OData request URL. It knows nothing of the model: names are plain
 * strings, literals carry the type their lexical form implies. Binding against the model
 * (`bind/`) turns it into a typed tree.
 *
 * Every node carries `pos`: the zero-based character offset of its first character inside the
 * query-option value it was parsed from, so errors can point at it.
 */

export interface Node {
  readonly pos: number;
}

// ---------------------------------------------------------------- expressions (OData ABNF commonExpr)

export type Literal =
  | { readonly kind: "null"; readonly pos: number }
  | { readonly kind: "boolean"; readonly value: boolean; readonly pos: number }
  /** Integer and decimal literals keep their source text so no precision is lost. */
  | { readonly kind: "integer"; readonly text: string; readonly pos: number }
  | { readonly kind: "decimal"; readonly text: string; readonly pos: number }
  | { readonly kind: "string"; readonly value: string; readonly pos: number }
  | { readonly kind: "guid"; readonly value: string; readonly pos: number }
  | { readonly kind: "date"; readonly value: string; readonly pos: number }
  | { readonly kind: "dateTimeOffset"; readonly value: string; readonly pos: number }
  /** `13:20:00.5` as written */
  | { readonly kind: "timeOfDay"; readonly value: string; readonly pos: number }
  /** `duration'-P1DT2H'`: the ISO 8601 text between the quotes */
  | { readonly kind: "duration"; readonly value: string; readonly pos: number };

/** `A/B/C`: a member path, first segment relative to the current resource (or lambda variable). */
export interface PathExpr extends Node {
  readonly kind: "path";
  readonly segments: readonly string[];
}

export type BinaryOperator =
  | "eq"
  | "ne"
  | "gt"
  | "ge"
  | "lt"
  | "le"
  | "has"
  | "and"
  | "or"
  | "add"
  | "sub"
  | "mul"
  | "div"
  /** decimal division, even of two integers (OData 4.01 5.1.1.2.5) */
  | "divby"
  | "mod";

export interface BinaryExpr extends Node {
  readonly kind: "binary";
  readonly op: BinaryOperator;
  readonly left: Expr;
  readonly right: Expr;
}

export interface NotExpr extends Node {
  readonly kind: "not";
  readonly operand: Expr;
}

export interface NegateExpr extends Node {
  readonly kind: "negate";
  readonly operand: Expr;
}

/**
 * `X in (a, b, c)`, or `X in @list` with a JSON array as the alias's value. The items of a list
 * may be any expressions (`Price in (Cost, 10)`), a widening of the ABNF's literals-only
 * `listExpr`: each is compared as `eq` would be.
 */
export interface InExpr extends Node {
  readonly kind: "in";
  readonly operand: Expr;
  readonly list: readonly Expr[] | ParameterAliasExpr;
}

/** `name(args…)`, e.g. `contains(SKU,'A')`, `now()`. The name is as written. */
export interface CallExpr extends Node {
  readonly kind: "call";
  readonly name: string;
  readonly args: readonly Expr[];
}

/** `Details/any(d: d/Quantity gt 5)`; `any()` without a predicate has `variable`/`predicate` null. */
export interface LambdaExpr extends Node {
  readonly kind: "lambda";
  readonly op: "any" | "all";
  readonly collection: PathExpr;
  readonly variable: string | null;
  readonly predicate: Expr | null;
}

/** `@name` (ABNF `parameterAlias`): its value comes from `@name=…` in the URL or from server code. */
export interface ParameterAliasExpr extends Node {
  readonly kind: "parameterAlias";
  /** without the `@` */
  readonly name: string;
}

/** `case(A gt 0:1, true:0)` (ABNF `caseExpr`): the value of the first branch whose condition holds, else null */
export interface CaseExpr extends Node {
  readonly kind: "case";
  readonly branches: readonly { readonly when: Expr; readonly value: Expr }[];
}

export type Expr =
  | Literal
  | ParameterAliasExpr
  | PathExpr
  | BinaryExpr
  | NotExpr
  | NegateExpr
  | InExpr
  | CallExpr
  | CaseExpr
  | LambdaExpr;

// ---------------------------------------------------------------- query options

export interface OrderByItem extends Node {
  readonly expr: Expr;
  readonly direction: "asc" | "desc";
}

/** One `$select` item: a property path (`MailingAddress/City`) or `*`. */
export interface SelectItem extends Node {
  readonly path: readonly string[];
}

/** `alias` defined by `$compute=expr as alias`. */
export interface ComputeItem extends Node {
  readonly expr: Expr;
  readonly alias: string;
}

/** One `$expand` item with its nested options (`;`-separated inside parentheses). */
export interface ExpandItem extends Node {
  /** navigation path, e.g. `["PrimaryContact"]` or `["MailingAddress","Country"]` */
  readonly path: readonly string[];
  readonly options: QueryOptions;
}

export interface AggregateItem extends Node {
  readonly kind: "aggregate";
  /** `Quantity with sum as Total` → expr = path Quantity; `$count as N` → expr null, method "count" */
  readonly expr: Expr | null;
  readonly method: "sum" | "min" | "max" | "average" | "countdistinct" | "count";
  readonly alias: string;
}

export type ApplyTransformation =
  | { readonly kind: "filter"; readonly predicate: Expr; readonly pos: number }
  | { readonly kind: "aggregate"; readonly items: readonly AggregateItem[]; readonly pos: number }
  | {
      readonly kind: "groupby";
      readonly groups: readonly PathExpr[];
      /** the optional second argument: `groupby((A,B),aggregate(…))` */
      readonly aggregate: readonly AggregateItem[] | null;
      readonly pos: number;
    };

/**
 * The value of `@name=…` in the URL (ABNF `aliasAndValue`): a literal, or JSON (an array, as the
 * list of `X in @name`).
 */
export type AliasValue =
  | { readonly kind: "literal"; readonly literal: Literal }
  | { readonly kind: "json"; readonly value: unknown; readonly pos: number };

/**
 * A `$search` expression (OData 4.01 ABNF `searchExpr`): words and "phrases" joined by `AND`
 * (also implied by a blank), `OR` and `NOT`, grouped by parentheses.
 */
export type SearchExpr =
  /** a word, or the text of a phrase without its quotes and escapes */
  | { readonly kind: "word" | "phrase"; readonly value: string; readonly pos: number }
  | { readonly kind: "not"; readonly operand: SearchExpr; readonly pos: number }
  | { readonly kind: "and" | "or"; readonly left: SearchExpr; readonly right: SearchExpr; readonly pos: number };

/** Query options of a request or of one `$expand` item; absent options are `undefined`. */
export interface QueryOptions {
  readonly filter?: Expr;
  readonly orderby?: readonly OrderByItem[];
  readonly select?: readonly SelectItem[];
  readonly expand?: readonly ExpandItem[];
  readonly top?: number;
  readonly skip?: number;
  readonly count?: boolean;
  readonly apply?: readonly ApplyTransformation[];
  readonly compute?: readonly ComputeItem[];
  readonly search?: SearchExpr;
  /** `@name=value` of the URL by name without `@` (top level only; `$expand` items use these too) */
  readonly aliases?: ReadonlyMap<string, AliasValue>;
}

// ---------------------------------------------------------------- resource path

/**
 * One value in a segment's parentheses: a key (`(<guid>)`, `('x')`, `(guid'…')`), or a named one
 * (`(Guid=<guid>)`, a function's `(customerId='C1')`).
 */
export interface SegmentArgument extends Node {
  /** null for a key written without its name */
  readonly name: string | null;
  readonly value: Literal;
}

/**
 * One segment of a resource path: `Product(<guid>)`, `Details`, `bizdata.Post`,
 * `GetOpenOrders(customerId='C1')`, `$count`. What it is (an entity set, a navigation property, a
 * method) is for the binder to say: the parser knows no model.
 */
export interface PathSegment extends Node {
  /** the name as written, without its qualifier */
  readonly name: string;
  /** what qualifies the name (`bizdata` in `bizdata.Post`), null when unqualified */
  readonly qualifier: string | null;
  /** the values in parentheses, in order; null without parentheses */
  readonly args: readonly SegmentArgument[] | null;
}

/** the resource path after the service root, segment by segment */
export interface ResourcePath {
  readonly segments: readonly PathSegment[];
}
