/**
 * `$search` rules (OData 4.01 ABNF `searchExpr`), over the tokens of search-tokens.ts:
 *
 *   searchExpr = searchAnd *( "OR" searchAnd )
 *   searchAnd  = searchNot *( [ "AND" ] searchNot )     ; a blank between terms is AND
 *   searchNot  = "NOT" searchNot / searchTerm
 *   searchTerm = word / phrase / "(" searchExpr ")"
 *
 * so `NOT` binds tighter than `AND`, and `AND` tighter than `OR`. Parentheses and `NOT` count
 * against `maxExpressionDepth` like an expression's, words and phrases against `maxSearchTerms`.
 */
import type { IOrAlt } from "chevrotain";
import type { SearchExpr } from "./ast.js";
import { ExpressionParser } from "./expression-parser.js";
import {
  SearchAnd,
  SearchClose,
  SearchNot,
  SearchOpen,
  SearchOr,
  SearchPhrase,
  SearchWordCategory,
} from "./search-tokens.js";

/** `"a \"b\" \\ c"` → `a "b" \ c` */
const phraseText = (image: string) => image.slice(1, -1).replace(/\\(.)/g, "$1");

export class SearchExpressionParser extends ExpressionParser {
  /** words and phrases read so far, capped by `maxSearchTerms` */
  private terms = 0;

  override reset(): void {
    super.reset();
    this.terms = 0;
  }

  private countTerm(position: number): void {
    if (++this.terms > this.limits.maxSearchTerms) {
      this.fail(position, `search has more than the limit of ${this.limits.maxSearchTerms} terms`);
    }
  }

  /** ABNF `searchExpr`: terms joined by `OR` */
  public searchExpr = this.RULE("searchExpr", (): SearchExpr => {
    let left = this.SUBRULE(this.searchAnd);
    this.MANY(() => {
      this.CONSUME(SearchOr);
      const right = this.SUBRULE2(this.searchAnd);
      left = { kind: "or", left, right, pos: left.pos };
    });
    return left;
  });

  /** terms joined by `AND` or by nothing but a blank */
  protected searchAnd = this.RULE("searchAnd", (): SearchExpr => {
    let left = this.SUBRULE(this.searchNot);
    this.MANY(() => {
      this.OPTION(() => this.CONSUME(SearchAnd));
      const right = this.SUBRULE2(this.searchNot);
      left = { kind: "and", left, right, pos: left.pos };
    });
    return left;
  });

  protected searchNot = this.RULE("searchNot", (): SearchExpr => this.OR(this.searchNotAlternatives));

  private readonly searchNotAlternatives: IOrAlt<SearchExpr>[] = [
    {
      ALT: () => {
        const not = this.CONSUME(SearchNot);
        if (!this.RECORDING_PHASE) this.enterNesting(not.startOffset);
        const operand = this.SUBRULE(this.searchNot);
        if (!this.RECORDING_PHASE) this.depth--;
        return { kind: "not", operand, pos: not.startOffset };
      },
    },
    {
      ALT: () => {
        const word = this.CONSUME(SearchWordCategory);
        if (!this.RECORDING_PHASE) this.countTerm(word.startOffset);
        return { kind: "word", value: word.image, pos: word.startOffset };
      },
    },
    {
      ALT: () => {
        const phrase = this.CONSUME(SearchPhrase);
        if (!this.RECORDING_PHASE) this.countTerm(phrase.startOffset);
        return { kind: "phrase", value: phraseText(phrase.image), pos: phrase.startOffset };
      },
    },
    {
      ALT: () => {
        const open = this.CONSUME(SearchOpen);
        if (!this.RECORDING_PHASE) this.enterNesting(open.startOffset);
        const inner = this.SUBRULE(this.searchExpr);
        this.CONSUME(SearchClose);
        if (!this.RECORDING_PHASE) this.depth--;
        return inner;
      },
    },
  ];
}
