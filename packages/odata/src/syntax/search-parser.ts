/**
 * `$search` rules (OData 4.01 ABNF `search`, `searchExpr` and `searchExpr-incomplete`), over the
 * tokens of search-tokens.ts:
 *
 *   search     = searchExpr / incomplete              ; incomplete: the whole value in '…'
 *   searchExpr = searchAnd *( "OR" searchAnd )
 *   searchAnd  = searchNot *( [ "AND" ] searchNot )   ; a blank between terms is AND
 *   searchNot  = "NOT" searchNot / searchTerm
 *   searchTerm = word / phrase / "(" searchExpr ")"
 *
 * so `NOT` binds tighter than `AND`, and `AND` tighter than `OR` (URL conventions 5.1.7). As in
 * the ABNF, `AND`, `OR` and `NOT` are operators only with a term to operate on: `NOT` before a
 * term, `AND` and `OR` between two. Anywhere else they are words (`$search=AND`, `NOT NOT`:
 * not the word NOT, `AND OR NOT`: the word AND or the word NOT). Parentheses and `NOT` count
 * against `maxExpressionDepth` like an expression's, words and phrases against `maxSearchTerms`.
 */
import { EOF, type IOrAlt, type IToken, tokenMatcher } from "chevrotain";
import type { SearchExpr } from "./ast.js";
import { ExpressionParser } from "./expression-parser.js";
import {
  SearchAnd,
  SearchClose,
  SearchIncomplete,
  SearchNot,
  SearchOpen,
  SearchOr,
  SearchPhrase,
  SearchTermStart,
  SearchWordCategory,
} from "./search-tokens.js";
import { RParen, Semicolon } from "./tokens.js";

/** `"a \"b\" \\ c"` → `a "b" \ c` */
const phraseText = (image: string) => image.slice(1, -1).replace(/\\(.)/g, "$1");

/** whether something (a blank, as the lexer skips only those) lies between two tokens */
const apart = (before: IToken, after: IToken) => after.startOffset > before.startOffset + before.image.length;

/** whether `token` can begin a search term (an operator word included: it is a word there) */
const startsTerm = (token: IToken) => tokenMatcher(token, SearchTermStart);

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

  /**
   * `AND` or `OR` (`op`) at the next token as an operator: apart from a term on either side
   * (ABNF: `RWS "OR" RWS searchExpr`)
   */
  private operatorAhead(op: typeof SearchOr): boolean {
    const operator = this.LA(1);
    const next = this.LA(2);
    return tokenMatcher(operator, op) && startsTerm(next) && apart(operator, next) && apart(this.LA(0), operator);
  }

  /** ABNF `searchAndExpr`: terms are apart, `blue"green"` and `(a)(b)` are not two terms */
  private blankBefore(term: IToken): void {
    if (!this.RECORDING_PHASE && !apart(this.LA(0), term)) {
      this.fail(term.startOffset, "search terms are separated by a blank");
    }
  }

  /** ABNF `search` value: a search expression, or the whole value in single quotes */
  public search = this.RULE("search", (): SearchExpr => this.OR(this.searchAlternatives));

  private readonly searchAlternatives: IOrAlt<SearchExpr>[] = [
    {
      ALT: () => {
        const quoted = this.CONSUME(SearchIncomplete);
        // the end of the value: of the text, or of the search inside `$expand` (`;` or `)`)
        const next = this.LA(1);
        const end = tokenMatcher(next, EOF) || tokenMatcher(next, Semicolon) || tokenMatcher(next, RParen);
        if (!this.RECORDING_PHASE && !end) this.quotedNotWhole(next);
        return this.incomplete(quoted);
      },
    },
    {
      ALT: () => {
        const expr = this.SUBRULE(this.searchExpr);
        if (!this.RECORDING_PHASE && tokenMatcher(this.LA(1), SearchIncomplete)) this.quotedNotWhole(this.LA(1));
        return expr;
      },
    },
  ];

  private quotedNotWhole(at: IToken): never {
    return this.fail(at.startOffset, "a search in single quotes is the whole value, with nothing before or after it");
  }

  /**
   * The expression a `searchExpr` or `searchAnd` is building: the steps of their loops are
   * objects made once (a closure per call costs an allocation and, under esbuild's keepNames, a
   * `__name` call: a third of a short search's time), so they build on this field, which each
   * rule sets on entry and gives back on exit.
   */
  private building: SearchExpr = { kind: "word", value: "", pos: 0 };

  /** ABNF `searchExpr`: terms joined by `OR` */
  public searchExpr = this.RULE("searchExpr", (): SearchExpr => {
    const outer = this.building;
    this.building = this.SUBRULE(this.searchAnd);
    this.MANY(this.orStep);
    const expr = this.building;
    this.building = outer;
    return expr;
  });

  private readonly orStep = {
    GATE: () => this.operatorAhead(SearchOr),
    DEF: () => {
      this.CONSUME(SearchOr);
      const right = this.SUBRULE2(this.searchAnd);
      this.building = { kind: "or", left: this.building, right, pos: this.building.pos };
    },
  };

  /** terms joined by `AND` or by nothing but a blank; an `OR` between two terms ends the run */
  protected searchAnd = this.RULE("searchAnd", (): SearchExpr => {
    const outer = this.building;
    this.building = this.SUBRULE(this.searchNot);
    this.MANY(this.andStep);
    const expr = this.building;
    this.building = outer;
    return expr;
  });

  private readonly andStep = {
    GATE: () => startsTerm(this.LA(1)) && !this.operatorAhead(SearchOr),
    DEF: () => {
      this.OPTION(this.andOperator);
      this.blankBefore(this.LA(1));
      const right = this.SUBRULE2(this.searchNot);
      this.building = { kind: "and", left: this.building, right, pos: this.building.pos };
    },
  };

  private readonly andOperator = {
    GATE: () => this.operatorAhead(SearchAnd),
    DEF: () => this.CONSUME(SearchAnd),
  };

  protected searchNot = this.RULE("searchNot", (): SearchExpr => this.OR2(this.searchNotAlternatives));

  /**
   * The alternatives are told apart by their first token alone (LL(1)): `NOT`, `AND` and `OR` have
   * alternatives of their own that read them as words where they operate on nothing, rather than
   * being words too, which would make Chevrotain look two tokens ahead over every pair of tokens.
   */
  private readonly searchNotAlternatives: IOrAlt<SearchExpr>[] = [
    {
      ALT: () => {
        const not = this.CONSUME(SearchNot);
        const operand = this.OPTION(this.negated);
        return operand === undefined ? this.word(not) : { kind: "not", operand, pos: not.startOffset };
      },
    },
    { ALT: () => this.word(this.CONSUME(SearchWordCategory)) },
    { ALT: () => this.word(this.CONSUME(SearchAnd)) },
    { ALT: () => this.word(this.CONSUME(SearchOr)) },
    {
      ALT: () => {
        const phrase = this.CONSUME(SearchPhrase);
        if (!this.RECORDING_PHASE) this.countTerm(phrase.startOffset);
        return { kind: "phrase", value: this.unescaped(phraseText(phrase.image)), pos: phrase.startOffset };
      },
    },
    {
      ALT: () => {
        const open = this.CONSUME(SearchOpen);
        if (!this.RECORDING_PHASE) this.enterNesting(open.startOffset);
        const inner = this.SUBRULE2(this.searchExpr);
        this.CONSUME(SearchClose);
        if (!this.RECORDING_PHASE) this.depth--;
        return inner;
      },
    },
  ];

  /** what a `NOT` just read operates on: a term apart from it (ABNF `"NOT" RWS`) */
  private readonly negated = {
    GATE: () => apart(this.LA(0), this.LA(1)),
    DEF: (): SearchExpr => {
      const not = this.LA(0);
      if (!this.RECORDING_PHASE) this.enterNesting(not.startOffset);
      const operand = this.SUBRULE(this.searchNot);
      if (!this.RECORDING_PHASE) this.depth--;
      return operand;
    },
  };

  private word(token: IToken): SearchExpr {
    if (!this.RECORDING_PHASE) this.countTerm(token.startOffset);
    return { kind: "word", value: this.unescaped(token.image), pos: token.startOffset };
  }

  /**
   * `'…'`: the service may read an incomplete expression as it sees fit (URL conventions 5.1.7);
   * here as the words in it, all of them, with its quotes and parentheses dropped, so a search
   * box's `'"blue p` finds what `blue p` would. With no word in it the text is one term, which
   * binding refuses as having nothing to search for.
   */
  private incomplete(token: IToken): SearchExpr {
    const inner = token.image.slice(1, -1);
    const start = token.startOffset + 1;
    let expr: SearchExpr | undefined;
    for (const match of inner.matchAll(/[^\s"()]+/g)) {
      if (!this.RECORDING_PHASE) this.countTerm(start + match.index);
      const value = this.unescaped(match[0].replaceAll("''", "'"));
      const word: SearchExpr = { kind: "word", value, pos: start + match.index };
      expr = expr === undefined ? word : { kind: "and", left: expr, right: word, pos: expr.pos };
    }
    return expr ?? { kind: "word", value: inner.replaceAll("''", "'"), pos: start };
  }
}
