/**
 * The complete grammar: expressions and query options (inherited) plus `$apply` (OData
 * Data Aggregation ABNF `applyExpr`) and the resource path. One instance, built once and reused
 * for every parse (Chevrotain performance guide).
 */
import { isGuid, odataStringValue } from "@bizdata/core";
import type { IOrAlt, IToken } from "chevrotain";
import type { AggregateItem, ApplyTransformation, Literal, PathExpr, PathSegment, SegmentArgument } from "./ast.js";
import { QueryOptionParser } from "./query-option-parser.js";
import {
  Aggregate,
  As,
  Comma,
  DollarCount,
  Dot,
  Equals,
  Filter,
  GroupBy,
  Identifier,
  LParen,
  RParen,
  Segment,
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
   * One segment of the resource path (spec 4.2, 4.8): a name, qualified or not, or `$count`, with
   * an optional parenthesized key or parameter list. The path is split at its raw `/` and each
   * segment percent-decoded before it gets here (parse-resource-path.ts).
   */
  public pathSegment = this.RULE("pathSegment", (): PathSegment => {
    const first = this.CONSUME(Segment);
    // `bizdata.Post`, `acme.sales.GetOpenOrders`: a qualified name, its parts and dots adjacent
    const parts: IToken[] = [first];
    this.MANY(() => {
      const dot = this.CONSUME(Dot);
      const part = this.CONSUME(Word);
      if (!this.RECORDING_PHASE) {
        const before = parts[parts.length - 1]!;
        if (before.startOffset + before.image.length !== dot.startOffset || part.startOffset !== dot.startOffset + 1) {
          this.fail(dot.startOffset, "a qualified name has no blanks around its '.'");
        }
      }
      parts.push(part);
    });
    let args: SegmentArgument[] | null = null;
    this.OPTION(() => {
      this.CONSUME(LParen);
      const list: SegmentArgument[] = [];
      args = list;
      this.OPTION2(() => {
        this.segmentArgument(list, this.SUBRULE(this.segmentArg));
        this.MANY2(() => {
          this.CONSUME(Comma);
          this.segmentArgument(list, this.SUBRULE2(this.segmentArg));
        });
      });
      this.CONSUME(RParen);
    });
    if (this.RECORDING_PHASE) return { name: "", qualifier: null, args, pos: 0 };
    const images = parts.map((t) => (t.tokenType === DollarCount ? "$count" : t.image));
    return {
      name: images[images.length - 1]!,
      qualifier: images.length === 1 ? null : images.slice(0, -1).join("."),
      args,
      pos: first.startOffset,
    };
  });

  /** a key or `name=value` in a segment's parentheses */
  protected segmentArg = this.RULE("segmentArg", (): SegmentArgument => this.OR(this.segmentArgAlternatives));

  private readonly segmentArgAlternatives: IOrAlt<SegmentArgument>[] = [
    {
      ALT: () => {
        const name = this.CONSUME(Identifier);
        this.CONSUME(Equals);
        return { name: name.image, value: this.SUBRULE(this.keyValue), pos: name.startOffset };
      },
    },
    {
      ALT: () => {
        const value = this.SUBRULE2(this.keyValue);
        return { name: null, value, pos: value.pos };
      },
    },
  ];

  /** a literal, or `guid'…'` as OData 4.0 clients still write a Guid key */
  protected keyValue = this.RULE("keyValue", (): Literal => this.OR(this.keyValueAlternatives));

  private readonly keyValueAlternatives: IOrAlt<Literal>[] = [
    { ALT: () => this.primitiveLiteral() },
    {
      ALT: () => {
        const prefix = this.CONSUME(Identifier);
        if (!this.RECORDING_PHASE && prefix.image.toLowerCase() !== "guid") {
          this.fail(prefix.startOffset, `expected a literal value but found '${prefix.image}'`);
        }
        const quoted = this.CONSUME(StringLiteral);
        const value = odataStringValue(quoted.image);
        if (!this.RECORDING_PHASE && !isGuid(value)) this.fail(quoted.startOffset, `'${value}' is not a GUID`);
        return { kind: "guid", value, pos: prefix.startOffset };
      },
    },
  ];

  /** a key without a name stands alone; a name is given once */
  private segmentArgument(into: SegmentArgument[], argument: SegmentArgument): void {
    if (this.RECORDING_PHASE) return;
    const unnamed = into.length > 0 && (argument.name === null || into[0]!.name === null);
    if (unnamed) this.fail(argument.pos, "a value without a name must be the only one in parentheses");
    if (into.some((a) => a.name === argument.name)) this.fail(argument.pos, `'${argument.name}' is repeated`);
    into.push(argument);
  }
}

/** The shared parser; run-rule.ts drives it for each entry point. */
export const parser = new ODataParser();
export type { ODataParser };
