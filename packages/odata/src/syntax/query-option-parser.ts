/**
 * Rules for the query options that can also appear nested in `$expand` (OData 4.01 ABNF
 * `orderby`, `select`, `expand`, `compute` and their items). A whole `$expand` value is lexed and
 * parsed in one go, so nested options report positions inside the `$expand` value.
 */
import type { IOrAlt, IToken, ParserMethod } from "chevrotain";
import type {
  ApplyTransformation,
  ComputeItem,
  ExpandItem,
  OrderByItem,
  PathExpr,
  QueryOptions,
  SelectItem,
} from "./ast.js";
import { readNonNegativeInteger } from "./paging.js";
import { SearchExpressionParser } from "./search-parser.js";
import { SearchOptionStart } from "./search-tokens.js";
import { BLANK_AFTER_EQUALS } from "./syntax-error.js";
import {
  ApplyOption,
  As,
  BooleanLiteral,
  Comma,
  ComputeOption,
  CountOption,
  Desc,
  Equals,
  ExpandOption,
  FilterOption,
  Identifier,
  LParen,
  NumberLiteral,
  OrderByOption,
  RParen,
  SelectOption,
  Semicolon,
  SkipOption,
  Slash,
  SortDirection,
  Star,
  TopOption,
  True,
  Word,
} from "./tokens.js";

export type MutableQueryOptions = { -readonly [K in keyof QueryOptions]: QueryOptions[K] };

/** One parsed `$name=value` of an expand item, before it is stored (and checked for repeats). */
type ParsedOption = {
  [K in keyof QueryOptions]-?: { readonly key: K; readonly value: NonNullable<QueryOptions[K]>; readonly name: IToken };
}[keyof QueryOptions];

export abstract class QueryOptionParser extends SearchExpressionParser {
  /** ABNF `applyExpr`, which `$apply` inside `$expand` reads (odata-parser.ts) */
  public abstract readonly applyExpr: ParserMethod<[], ApplyTransformation[]>;

  /** levels of `$expand` currently open, capped by `maxExpandDepth` */
  protected expandDepth = 0;

  override reset(): void {
    super.reset();
    this.expandDepth = 0;
  }

  /** ABNF `orderby` value: `orderbyItem *( COMMA orderbyItem )` */
  public orderby = this.RULE("orderby", (): OrderByItem[] => {
    const items: OrderByItem[] = [this.SUBRULE(this.orderbyItem)];
    this.MANY(() => {
      this.CONSUME(Comma);
      items.push(this.SUBRULE2(this.orderbyItem));
    });
    return items;
  });

  /** ABNF `orderbyItem`: `commonExpr [ RWS ( "asc" / "desc" ) ]` */
  protected orderbyItem = this.RULE("orderbyItem", (): OrderByItem => {
    const pos = this.LA(1).startOffset;
    const expr = this.SUBRULE(this.commonExpr);
    let direction: "asc" | "desc" = "asc";
    this.OPTION(() => {
      if (this.CONSUME(SortDirection).tokenType === Desc) direction = "desc";
    });
    return { expr, direction, pos };
  });

  /** ABNF `select` value: `selectItem *( COMMA selectItem )` */
  public select = this.RULE("select", (): SelectItem[] => {
    const items: SelectItem[] = [this.SUBRULE(this.selectItem)];
    this.MANY(() => {
      this.CONSUME(Comma);
      items.push(this.SUBRULE2(this.selectItem));
    });
    return items;
  });

  /** ABNF `selectItem`: `*` or a property path */
  protected selectItem = this.RULE("selectItem", (): SelectItem => this.OR(this.selectItemAlternatives));

  private readonly selectItemAlternatives: IOrAlt<SelectItem>[] = [
    { ALT: () => ({ path: ["*"], pos: this.CONSUME(Star).startOffset }) },
    {
      ALT: () => {
        const path = this.SUBRULE(this.propertyPath);
        return { path: path.segments, pos: path.pos };
      },
    },
  ];

  /** `A/B/C` of names, as in `$select`, `$expand` and `groupby` (no functions, no `$count`). */
  protected propertyPath = this.RULE("propertyPath", (): PathExpr => {
    const first = this.CONSUME(Word);
    const segments = [first.image];
    this.MANY(() => {
      this.CONSUME(Slash);
      segments.push(this.CONSUME2(Word).image);
    });
    return { kind: "path", segments, pos: first.startOffset };
  });

  /** ABNF `expand` value; each level counts against `maxExpandDepth`, its items against `maxExpandWidth`. */
  public expand = this.RULE("expand", (): ExpandItem[] => {
    const start = this.LA(1).startOffset;
    if (!this.RECORDING_PHASE && ++this.expandDepth > this.limits.maxExpandDepth) {
      this.fail(start, `$expand is nested more than ${this.limits.maxExpandDepth} levels deep`);
    }
    const items: ExpandItem[] = [this.SUBRULE(this.expandItem)];
    this.MANY(() => {
      this.CONSUME(Comma);
      const item = this.SUBRULE2(this.expandItem);
      if (!this.RECORDING_PHASE && items.length >= this.limits.maxExpandWidth) {
        this.fail(item.pos, `more than ${this.limits.maxExpandWidth} $expand items at one level`);
      }
      items.push(item);
    });
    if (!this.RECORDING_PHASE) this.expandDepth--;
    return items;
  });

  /** ABNF `expandItem`: a navigation path with optional `(option;option…)`, each option at most once. */
  protected expandItem = this.RULE("expandItem", (): ExpandItem => {
    const path = this.SUBRULE(this.propertyPath);
    const options: MutableQueryOptions = {};
    this.OPTION(() => {
      this.CONSUME(LParen);
      this.storeOption(options, this.SUBRULE(this.expandOption));
      this.MANY(() => {
        this.CONSUME(Semicolon);
        this.storeOption(options, this.SUBRULE2(this.expandOption));
      });
      this.CONSUME(RParen);
    });
    return { path: path.segments, options, pos: path.pos };
  });

  /** ABNF `expandOption`: one `$name=value` inside an expand item's parentheses. */
  protected expandOption = this.RULE("expandOption", (): ParsedOption => this.OR(this.expandOptionAlternatives));

  private readonly expandOptionAlternatives: IOrAlt<ParsedOption>[] = [
    {
      ALT: () => {
        const name = this.CONSUME(SelectOption);
        this.noBlankAfter(this.CONSUME(Equals));
        return { key: "select", value: this.SUBRULE(this.select), name };
      },
    },
    {
      ALT: () => {
        const name = this.CONSUME(FilterOption);
        this.noBlankAfter(this.CONSUME2(Equals));
        return { key: "filter", value: this.SUBRULE(this.boolCommonExpr), name };
      },
    },
    {
      ALT: () => {
        const name = this.CONSUME(OrderByOption);
        this.noBlankAfter(this.CONSUME3(Equals));
        return { key: "orderby", value: this.SUBRULE(this.orderby), name };
      },
    },
    {
      ALT: () => {
        const name = this.CONSUME(TopOption);
        this.noBlankAfter(this.CONSUME4(Equals));
        const value = this.CONSUME(NumberLiteral);
        return { key: "top", value: this.pagingValue(value, this.limits.maxPageSize), name };
      },
    },
    {
      ALT: () => {
        const name = this.CONSUME(SkipOption);
        this.noBlankAfter(this.CONSUME5(Equals));
        const value = this.CONSUME2(NumberLiteral);
        return { key: "skip", value: this.pagingValue(value, Number.MAX_SAFE_INTEGER), name };
      },
    },
    {
      ALT: () => {
        const name = this.CONSUME(CountOption);
        this.noBlankAfter(this.CONSUME6(Equals));
        return { key: "count", value: this.CONSUME(BooleanLiteral).tokenType === True, name };
      },
    },
    {
      ALT: () => {
        const name = this.CONSUME(ExpandOption);
        this.noBlankAfter(this.CONSUME7(Equals));
        return { key: "expand", value: this.SUBRULE(this.expand), name };
      },
    },
    {
      ALT: () => {
        const name = this.CONSUME(ComputeOption);
        this.noBlankAfter(this.CONSUME8(Equals));
        return { key: "compute", value: this.SUBRULE(this.compute), name };
      },
    },
    {
      // `$search=` is one token: the expand lexer reads what follows as a search (lexer.ts)
      ALT: () => {
        const name = this.CONSUME(SearchOptionStart);
        this.noBlankAfter(name);
        return { key: "search", value: this.SUBRULE(this.search), name };
      },
    },
    {
      // OData Data Aggregation 4.0 §3.15: `$apply` in `$expand`, applied to the expanded collection
      ALT: () => {
        const name = this.CONSUME(ApplyOption);
        this.noBlankAfter(this.CONSUME9(Equals));
        return { key: "apply", value: this.SUBRULE(this.applyExpr), name };
      },
    },
  ];

  /** ABNF `compute` value: `computeItem *( COMMA computeItem )` */
  public compute = this.RULE("compute", (): ComputeItem[] => {
    const items: ComputeItem[] = [this.SUBRULE(this.computeItem)];
    this.MANY(() => {
      this.CONSUME(Comma);
      items.push(this.SUBRULE2(this.computeItem));
    });
    return items;
  });

  /** ABNF `computeItem`: `commonExpr RWS "as" RWS computedAlias` */
  protected computeItem = this.RULE("computeItem", (): ComputeItem => {
    const pos = this.LA(1).startOffset;
    const expr = this.SUBRULE(this.commonExpr);
    this.CONSUME(As);
    const alias = this.CONSUME(Identifier);
    return { expr, alias: alias.image, pos };
  });

  private storeOption(options: MutableQueryOptions, option: ParsedOption): void {
    if (this.RECORDING_PHASE) return;
    if (options[option.key] !== undefined) {
      this.fail(option.name.startOffset, `option '${option.name.image.replace(/=$/, "")}' is repeated`);
    }
    (options as Record<string, unknown>)[option.key] = option.value;
  }

  /**
   * The ABNF has no BWS after the `=` of an option (`EQ = "="`), so `$top= 5` is an error
   * rather than a value quietly read without the blank.
   */
  private noBlankAfter(equals: IToken): void {
    if (this.RECORDING_PHASE) return;
    const next = this.LA(1).startOffset;
    const end = equals.startOffset + equals.image.length;
    // NaN at the end of input: the grammar reports the missing value
    if (next > end) this.fail(end, BLANK_AFTER_EQUALS);
  }

  /** `$top`/`$skip` inside `$expand`: the same rules as at the top level (paging.ts). */
  private pagingValue(token: IToken, max: number): number {
    if (this.RECORDING_PHASE) return 0;
    const reading = readNonNegativeInteger(token.image, max);
    if (!reading.ok) this.fail(token.startOffset + reading.offset, reading.problem);
    return reading.value;
  }
}
