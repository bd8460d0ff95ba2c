/**
 * The complete grammar: expressions and query options (inherited) plus `$apply` (OData
 * Data Aggregation ABNF `applyExpr`) and the resource path. One instance, built once and reused
 * for every parse (Chevrotain performance guide).
 */
import { isGuid } from "@bizdata/core";
import type { IOrAlt, IToken } from "chevrotain";
import type { AggregateItem, ApplyTransformation, Literal, PathExpr, ResourcePath } from "./ast.js";
import { unquote } from "./literals.js";
import { QueryOptionParser } from "./query-option-parser.js";
import {
  Aggregate,
  As,
  Comma,
  DollarCount,
  Equals,
  Filter,
  GroupBy,
  GuidLiteral,
  Identifier,
  LParen,
  RParen,
  Slash,
  StringLiteral,
  With,
  Word,
} from "./tokens.js";

type AggregateMethod = AggregateItem["method"];
const aggregateMethods: ReadonlySet<string> = new Set<AggregateMethod>([
  "sum",
  "min",
  "max",
  "average",
  "countdistinct",
]);

interface MethodCall {
  readonly method: string;
  readonly parens: boolean;
  readonly inlineArgs: Readonly<Record<string, Literal>>;
}

type PathTarget =
  | { readonly kind: "count"; readonly token: IToken }
  | { readonly kind: "method"; readonly method: MethodCall };

class ODataParser extends QueryOptionParser {
  constructor() {
    super();
    this.performSelfAnalysis();
  }

  /** ABNF `applyExpr`: transformations chained with `/` */
  public applyExpr = this.RULE("applyExpr", (): ApplyTransformation[] => {
    const steps: ApplyTransformation[] = [this.SUBRULE(this.applyTrafo)];
    this.MANY(() => {
      this.CONSUME(Slash);
      steps.push(this.SUBRULE2(this.applyTrafo));
    });
    return steps;
  });

  /** ABNF `applyTrafo`, the supported subset: `filterTrafo`, `aggregateTrafo`, `groupbyTrafo` */
  protected applyTrafo = this.RULE("applyTrafo", (): ApplyTransformation => this.OR(this.applyTrafoAlternatives));

  private readonly applyTrafoAlternatives: IOrAlt<ApplyTransformation>[] = [
    {
      ALT: () => {
        const name = this.CONSUME(Filter);
        this.CONSUME(LParen);
        const predicate = this.SUBRULE(this.boolCommonExpr);
        this.CONSUME(RParen);
        return { kind: "filter", predicate, pos: name.startOffset };
      },
    },
    { ALT: () => this.SUBRULE(this.aggregateTrafo) },
    {
      ALT: () => {
        const name = this.CONSUME(GroupBy);
        this.CONSUME2(LParen);
        const groups = this.SUBRULE(this.groupbyList);
        let aggregate: readonly AggregateItem[] | null = null;
        this.OPTION(() => {
          this.CONSUME(Comma);
          aggregate = this.SUBRULE2(this.aggregateTrafo).items;
        });
        this.CONSUME2(RParen);
        return { kind: "groupby", groups, aggregate, pos: name.startOffset };
      },
    },
  ];

  /** ABNF `aggregateTrafo`: `aggregate(aggregateExpr *( COMMA aggregateExpr ))` */
  protected aggregateTrafo = this.RULE(
    "aggregateTrafo",
    (): { kind: "aggregate"; items: AggregateItem[]; pos: number } => {
      const name = this.CONSUME(Aggregate);
      this.CONSUME(LParen);
      const items: AggregateItem[] = [this.SUBRULE(this.aggregateExpr)];
      this.MANY(() => {
        this.CONSUME(Comma);
        items.push(this.SUBRULE2(this.aggregateExpr));
      });
      this.CONSUME(RParen);
      return { kind: "aggregate", items, pos: name.startOffset };
    },
  );

  /** ABNF `aggregateExpr`, supported forms: `expr with method as alias` and `$count as alias` */
  protected aggregateExpr = this.RULE("aggregateExpr", (): AggregateItem => this.OR(this.aggregateExprAlternatives));

  private readonly aggregateExprAlternatives: IOrAlt<AggregateItem>[] = [
    {
      ALT: () => {
        const count = this.CONSUME(DollarCount);
        this.CONSUME(As);
        const alias = this.CONSUME(Identifier);
        return { kind: "aggregate", expr: null, method: "count", alias: alias.image, pos: count.startOffset };
      },
    },
    {
      ALT: () => {
        const pos = this.LA(1).startOffset;
        const expr = this.SUBRULE(this.commonExpr);
        this.CONSUME(With);
        const method = this.CONSUME2(Identifier);
        const methodName = method.image.toLowerCase();
        if (!this.RECORDING_PHASE && !aggregateMethods.has(methodName)) {
          this.fail(
            method.startOffset,
            `unknown aggregation method '${method.image}'; expected sum, min, max, average or countdistinct`,
          );
        }
        this.CONSUME2(As);
        const alias = this.CONSUME3(Identifier);
        return { kind: "aggregate", expr, method: methodName as AggregateMethod, alias: alias.image, pos };
      },
    },
  ];

  /** ABNF `groupbyList`: `(path *( COMMA path ))` */
  protected groupbyList = this.RULE("groupbyList", (): PathExpr[] => {
    this.CONSUME(LParen);
    const groups: PathExpr[] = [this.SUBRULE(this.propertyPath)];
    this.MANY(() => {
      this.CONSUME(Comma);
      groups.push(this.SUBRULE2(this.propertyPath));
    });
    this.CONSUME(RParen);
    return groups;
  });

  /** ABNF `aliasAndValue`, the value right of `@name=`: a primitive literal (JSON is read apart) */
  public aliasValue = this.RULE("aliasValue", (): Literal => this.primitiveLiteral());

  /**
   * The resource path after `/api/` (spec 4.2, 4.8): `Entity`, `Entity/$count`, `Entity(key)`,
   * `Entity(key)/Method()`, `Entity/Method(a=1)`, `Entity(key)/Method`.
   */
  public resourcePath = this.RULE("resourcePath", (): ResourcePath => {
    const entity = this.CONSUME(Word).image;
    let key: string | null = null;
    this.OPTION(() => {
      this.CONSUME(LParen);
      key = this.SUBRULE(this.keyPredicate);
      this.CONSUME(RParen);
    });
    let path: ResourcePath | undefined;
    this.OPTION2(() => {
      this.CONSUME(Slash);
      const target = this.OR(this.pathTargetAlternatives);
      if (this.RECORDING_PHASE) return;
      if (target.kind === "count") {
        if (key !== null)
          this.fail(target.token.startOffset, "'$count' applies to a collection, not to a single entity");
        path = { kind: "count", entity };
      } else {
        path = { kind: "method", entity, key, ...target.method };
      }
    });
    return path ?? (key === null ? { kind: "collection", entity } : { kind: "entity", entity, key });
  });

  private readonly pathTargetAlternatives: IOrAlt<PathTarget>[] = [
    { ALT: () => ({ kind: "count", token: this.CONSUME(DollarCount) }) },
    { ALT: () => ({ kind: "method", method: this.SUBRULE(this.methodSegment) }) },
  ];

  /** The key in `Entity(…)`: a bare GUID, `guid'…'` or a quoted string. */
  protected keyPredicate = this.RULE("keyPredicate", (): string => this.OR(this.keyAlternatives));

  private readonly keyAlternatives: IOrAlt<string>[] = [
    { ALT: () => this.CONSUME(GuidLiteral).image },
    { ALT: () => unquote(this.CONSUME(StringLiteral).image) },
    {
      // OData 4.0 clients still send `guid'…'`
      ALT: () => {
        const prefix = this.CONSUME(Identifier);
        if (!this.RECORDING_PHASE && prefix.image.toLowerCase() !== "guid") {
          this.fail(prefix.startOffset, `expected a GUID or a quoted key but found '${prefix.image}'`);
        }
        const quoted = this.CONSUME2(StringLiteral);
        const value = unquote(quoted.image);
        if (!this.RECORDING_PHASE && !isGuid(value)) this.fail(quoted.startOffset, `'${value}' is not a GUID`);
        return value;
      },
    },
  ];

  /** `Method`, `Method()` or `Method(name=literal,…)` after the entity set or entity. */
  protected methodSegment = this.RULE("methodSegment", (): MethodCall => {
    const method = this.CONSUME(Word).image;
    let parens = false;
    // no prototype: a parameter called `__proto__` stays a plain key
    const inlineArgs: Record<string, Literal> = Object.create(null);
    this.OPTION(() => {
      this.CONSUME(LParen);
      parens = true;
      this.OPTION2(() => {
        this.inlineArgument(inlineArgs, this.SUBRULE(this.parameterValue));
        this.MANY(() => {
          this.CONSUME(Comma);
          this.inlineArgument(inlineArgs, this.SUBRULE2(this.parameterValue));
        });
      });
      this.CONSUME(RParen);
    });
    return { method, parens, inlineArgs };
  });

  /** `name=literal` inside a method segment's parentheses */
  protected parameterValue = this.RULE("parameterValue", (): { name: IToken; value: Literal } => {
    const name = this.CONSUME(Identifier);
    this.CONSUME(Equals);
    return { name, value: this.primitiveLiteral() };
  });

  private inlineArgument(into: Record<string, Literal>, argument: { name: IToken; value: Literal }): void {
    if (this.RECORDING_PHASE) return;
    const name = argument.name.image;
    if (Object.hasOwn(into, name)) this.fail(argument.name.startOffset, `parameter '${name}' is repeated`);
    into[name] = argument.value;
  }
}

/** The shared parser; run-rule.ts drives it for each entry point. */
export const parser = new ODataParser();
export type { ODataParser };
