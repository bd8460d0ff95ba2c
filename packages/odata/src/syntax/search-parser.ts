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
  SearchWordCategory,
} from "./search-tokens.js";
import { RParen, Semicolon } from "./tokens.js";

/** `"a \"b\" \\ c"` → `a "b" \ c` */
const phraseText = (image: string) => image.slice(1, -1).replace(/\\(.)/g, "$1");

/** whether something (a blank, as the lexer skips only those) lies between two tokens */
const apart = (before: IToken, after: IToken) => after.startOffset > before.startOffset + before.image.length;

/**
 * whether `token` can begin a search term (an operator word included: it is a word there; a
 * quoted search too, to be refused as one that is not the whole value)
 */
const startsTerm = (token: IToken) =>
  tokenMatcher(token, SearchWordCategory) ||
  tokenMatcher(token, SearchPhrase) ||
  tokenMatcher(token, SearchOpen) ||
  tokenMatcher(token, SearchIncomplete);

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
   * the operator `op` at the next token, with a term after it to operate on, a blank after it
   * and, for `AND` and `OR`, before it (ABNF: `RWS "OR" RWS`, `"NOT" RWS`)
   */
  private operatorAhead(op: typeof SearchOr): boolean {
    const operator = this.LA(1);
    if (!tokenMatcher(operator, op) || !startsTerm(this.LA(2)) || !apart(operator, this.LA(2))) return false;
    return op === SearchNot || apart(this.LA(0), operator);
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
      // before searchExpr, which refuses the quoted form where it is not the whole value
      IGNORE_AMBIGUITIES: true,
      ALT: () => {
        const quoted = this.CONSUME(SearchIncomplete);
        // the end of the value: of the text, or of the search inside `$expand` (`;` or `)`)
        const next = this.LA(1);
        const end = tokenMatcher(next, EOF) || tokenMatcher(next, Semicolon) || tokenMatcher(next, RParen);
        if (!this.RECORDING_PHASE && !end) this.quotedNotWhole(next);
        return this.incomplete(quoted);
      },
    },
    { ALT: () => this.SUBRULE(this.searchExpr) },
  ];

  private quotedNotWhole(at: IToken): never {
    return this.fail(at.startOffset, "a search in single quotes is the whole value, with nothing before or after it");
  }

  /** ABNF `searchExpr`: terms joined by `OR` */
  public searchExpr = this.RULE("searchExpr", (): SearchExpr => {
    let left = this.SUBRULE(this.searchAnd);
    this.MANY({
      GATE: () => this.operatorAhead(SearchOr),
      DEF: () => {
        this.CONSUME(SearchOr);
        const right = this.SUBRULE2(this.searchAnd);
        left = { kind: "or", left, right, pos: left.pos };
      },
    });
    return left;
  });

  /** terms joined by `AND` or by nothing but a blank; an `OR` between two terms ends the run */
  protected searchAnd = this.RULE("searchAnd", (): SearchExpr => {
    let left = this.SUBRULE(this.searchNot);
    this.MANY({
      GATE: () => startsTerm(this.LA(1)) && !this.operatorAhead(SearchOr),
      DEF: () => {
        this.OPTION({ GATE: () => this.operatorAhead(SearchAnd), DEF: () => this.CONSUME(SearchAnd) });
        this.blankBefore(this.LA(1));
        const right = this.SUBRULE2(this.searchNot);
        left = { kind: "and", left, right, pos: left.pos };
      },
    });
    return left;
  });

  protected searchNot = this.RULE("searchNot", (): SearchExpr => this.OR2(this.searchNotAlternatives));

  private readonly searchNotAlternatives: IOrAlt<SearchExpr>[] = [
    {
      // before the word alternative, which `NOT` is a token of too
      GATE: () => this.operatorAhead(SearchNot),
      IGNORE_AMBIGUITIES: true,
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
        return { kind: "word", value: this.unescaped(word.image), pos: word.startOffset };
      },
    },
    {
      ALT: () => {
        const phrase = this.CONSUME(SearchPhrase);
        if (!this.RECORDING_PHASE) this.countTerm(phrase.startOffset);
        return { kind: "phrase", value: this.unescaped(phraseText(phrase.image)), pos: phrase.startOffset };
      },
    },
    {
      // only ever the whole value (`search` above): here it is an error that says so
      ALT: () => {
        const quoted = this.CONSUME2(SearchIncomplete);
        if (!this.RECORDING_PHASE) this.quotedNotWhole(quoted);
        return { kind: "word", value: "", pos: quoted.startOffset };
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
