/**
 * Expression rules (OData 4.01 ABNF `commonExpr` and what it is made of), building the syntax
 * tree directly in embedded actions: no CST, nothing to walk afterwards.
 *
 * The query-option rules extend this class; only the most derived parser runs
 * `performSelfAnalysis` (Chevrotain grammar inheritance).
 *
 * Two habits keep the hot path cheap. `OR` alternatives live in arrays built once (a fresh
 * `{ ALT: () => … }` per call costs an allocation, and a `__name` call under esbuild's keepNames),
 * so they return data instead of writing to the caller's locals. Semantic code runs under
 * `if (!this.RECORDING_PHASE)` rather than in an `ACTION` closure: it must not run while
 * Chevrotain records the grammar with placeholder tokens.
 */
import { EmbeddedActionsParser, type IOrAlt, type IToken } from "chevrotain";
import { defaultQueryLimits, type QueryLimits } from "../limits.js";
import type { BinaryOperator, CallExpr, CaseExpr, Expr, LambdaExpr, Literal, ParameterAliasExpr } from "./ast.js";
import { decodeDeferred } from "./deferred-escapes.js";
import { errorMessageProvider } from "./error-messages.js";
import { foldOperators, type Operand, type OperatorSequence } from "./fold-operators.js";
import { literalOf, literalProblem } from "./literals.js";
import { printExpr } from "./print-expr.js";
import { allSearchTokens } from "./search-tokens.js";
import { QuerySyntaxError } from "./syntax-error.js";
import {
  allTokens,
  BinaryOperator as BinaryOperatorToken,
  Colon,
  Comma,
  DollarCount,
  DollarIt,
  EncodedSemicolon,
  Identifier,
  In,
  LParen,
  Minus,
  Not,
  ParameterAlias,
  PathStart,
  PrimitiveLiteral,
  RParen,
  Segment,
  Slash,
} from "./tokens.js";

/** A path segment as the tree holds it: names as written, `$it` and `$count` in lower case. */
const pathSegment = (token: IToken): string =>
  token.tokenType === DollarIt ? "$it" : token.tokenType === DollarCount ? "$count" : token.image;

/** An argument of a call; `branch` is the value after `:` of a `case` branch. */
interface CallArgument {
  readonly value: Expr;
  readonly branch: { readonly expr: Expr; readonly colon: number } | null;
}

/** One `operator operand` step of a `commonExpr`. */
interface OperatorStep {
  readonly op: BinaryOperator | "in";
  readonly opPosition: number;
  readonly operand: Operand;
  readonly start: number;
}

export class ExpressionParser extends EmbeddedActionsParser {
  /** option being parsed, for error messages (`option` is taken by Chevrotain's DSL) */
  protected optionName = "";
  protected limits: QueryLimits = defaultQueryLimits;
  protected textLength = 0;
  /** nesting of `commonExpr` and unary operators, capped by `maxExpressionDepth` before the stack is */
  protected depth = 0;
  /** the text (`$search`, `$expand`) keeps `%25` and `%3B` encoded (deferred-escapes.ts): its terms and strings decode them */
  private deferredEscapes = false;

  constructor() {
    super([...allTokens, EncodedSemicolon, ...allSearchTokens], {
      recoveryEnabled: false,
      maxLookahead: 2,
      errorMessageProvider,
    });
  }

  /** Points the (reused) parser at a new input; setting `input` also calls `reset`. */
  begin(tokens: IToken[], option: string, textLength: number, limits: QueryLimits, deferredEscapes: boolean): void {
    this.optionName = option;
    this.textLength = textLength;
    this.limits = limits;
    this.deferredEscapes = deferredEscapes;
    this.input = tokens;
  }

  /** a value's text with the escapes the option's text kept (`%3B`, `%25`) decoded */
  protected unescaped(text: string): string {
    return this.deferredEscapes ? decodeDeferred(text) : text;
  }

  override reset(): void {
    super.reset();
    this.depth = 0;
  }

  protected fail(position: number, problem: string): never {
    // EOF tokens have a NaN offset: an error there is at the end of the text
    const at = Number.isNaN(position) || position < 0 ? this.textLength : position;
    throw new QuerySyntaxError(this.optionName, at, problem);
  }

  /** `fail` for plain functions (fold-operators.ts), created once rather than per call */
  private readonly failBound = (position: number, problem: string): never => this.fail(position, problem);

  protected enterNesting(position: number): void {
    if (++this.depth > this.limits.maxExpressionDepth) {
      this.fail(position, `expression is nested more than ${this.limits.maxExpressionDepth} levels deep`);
    }
  }

  /** ABNF `boolCommonExpr`: syntactically a `commonExpr`; that it is Boolean is the binder's business. */
  public boolCommonExpr = this.RULE("boolCommonExpr", (): Expr => this.SUBRULE(this.commonExpr));

  /**
   * ABNF `commonExpr`: operands joined by binary operators, read flat and folded by precedence
   * (fold-operators.ts). Each entry counts one nesting level: parentheses, call arguments, lambda
   * bodies and list items all come through here.
   */
  public commonExpr = this.RULE("commonExpr", (): Expr => {
    const start = this.LA(1).startOffset;
    if (!this.RECORDING_PHASE) this.enterNesting(start);
    const first = this.SUBRULE(this.unaryExpr);
    let seq: OperatorSequence | undefined;
    this.MANY(() => {
      const step = this.OR(this.operatorSteps);
      if (!this.RECORDING_PHASE) {
        seq ??= { operands: [first], starts: [start], ops: [], opPositions: [] };
        seq.ops.push(step.op);
        seq.opPositions.push(step.opPosition);
        seq.operands.push(step.operand);
        seq.starts.push(step.start);
      }
    });
    if (this.RECORDING_PHASE) return first;
    this.depth--;
    return seq === undefined ? first : foldOperators(seq, this.failBound);
  });

  private readonly operatorSteps: IOrAlt<OperatorStep>[] = [
    {
      ALT: () => {
        const op = this.CONSUME(BinaryOperatorToken);
        const start = this.LA(1).startOffset;
        const operand = this.SUBRULE2(this.unaryExpr);
        // keywords match in any case (tokens.ts); the tree holds the operator's name
        return { op: op.image.toLowerCase() as BinaryOperator, opPosition: op.startOffset, operand, start };
      },
    },
    {
      ALT: () => {
        const op = this.CONSUME(In);
        const start = this.LA(1).startOffset;
        const list = this.SUBRULE(this.inList);
        return { op: "in", opPosition: op.startOffset, operand: list, start };
      },
    },
  ];

  /** right of `in`: a list, or an alias whose value is a JSON array (its own rule for the error message) */
  protected inList = this.RULE("inList", (): Expr[] | ParameterAliasExpr => this.OR(this.inListAlternatives));

  private readonly inListAlternatives: IOrAlt<Expr[] | ParameterAliasExpr>[] = [
    { ALT: () => this.SUBRULE(this.listExpr) },
    { ALT: () => this.parameterAlias() },
  ];

  /** ABNF `primitiveLiteral`: a literal token, its field ranges checked (literals.ts) */
  protected primitiveLiteral(): Literal {
    const token = this.CONSUME(PrimitiveLiteral);
    if (!this.RECORDING_PHASE) {
      const problem = literalProblem(token);
      if (problem !== undefined) this.fail(token.startOffset, problem);
    }
    const literal = literalOf(token);
    return literal.kind === "string" && this.deferredEscapes
      ? { ...literal, value: this.unescaped(literal.value) }
      : literal;
  }

  /** ABNF `parameterAlias`: `@name` */
  protected parameterAlias(): ParameterAliasExpr {
    const token = this.CONSUME(ParameterAlias);
    return { kind: "parameterAlias", name: token.image.slice(1), pos: token.startOffset };
  }

  /** Unary `-` and `not` (one nesting level each) and the primary expressions. */
  protected unaryExpr = this.RULE("unaryExpr", (): Expr => this.OR2(this.unaryAlternatives));

  private readonly unaryAlternatives: IOrAlt<Expr>[] = [
    { ALT: () => this.memberExpr() },
    { ALT: () => this.parameterAlias() },
    { ALT: () => this.primitiveLiteral() },
    {
      // ABNF parenExpr
      ALT: () => {
        this.CONSUME3(LParen);
        const inner = this.SUBRULE4(this.commonExpr);
        this.CONSUME3(RParen);
        return inner;
      },
    },
    {
      // ABNF negateExpr
      ALT: () => {
        const minus = this.CONSUME(Minus);
        if (!this.RECORDING_PHASE) this.enterNesting(minus.startOffset);
        const operand = this.SUBRULE(this.unaryExpr);
        if (!this.RECORDING_PHASE) this.depth--;
        return { kind: "negate", operand, pos: minus.startOffset };
      },
    },
    {
      // ABNF notExpr
      ALT: () => {
        const not = this.CONSUME(Not);
        if (!this.RECORDING_PHASE) this.enterNesting(not.startOffset);
        const operand = this.SUBRULE2(this.unaryExpr);
        if (!this.RECORDING_PHASE) this.depth--;
        return { kind: "not", operand, pos: not.startOffset };
      },
    },
  ];

  /**
   * ABNF `firstMemberExpr` / `methodCallExpr`, part of `unaryExpr` (a separate rule would cost a
   * rule call per operand). A name followed by `(` is a call, of any name: the binder knows which
   * functions exist. Otherwise a path `A/B/$count`, which may end in a lambda `any(…)`/`all(…)`.
   */
  private memberExpr(): Expr {
    const first = this.CONSUME(PathStart);
    const pos = first.startOffset;
    let call: CallExpr | CaseExpr | undefined;
    this.OPTION(() => {
      const open = this.CONSUME(LParen);
      if (!this.RECORDING_PHASE && first.tokenType === DollarIt) this.fail(open.startOffset, "'$it' cannot be called");
      const args: CallArgument[] = [];
      this.OPTION2(() => {
        args.push(this.SUBRULE(this.callArgument));
        this.MANY(() => {
          this.CONSUME(Comma);
          args.push(this.SUBRULE2(this.callArgument));
        });
      });
      this.CONSUME(RParen);
      if (!this.RECORDING_PHASE) call = this.callOf(first, args);
    });
    const segments: string[] = [pathSegment(first)];
    let lambda: LambdaExpr | undefined;
    this.MANY2(() => {
      const slash = this.CONSUME(Slash);
      const segment = this.CONSUME(Segment);
      if (!this.RECORDING_PHASE) {
        if (call !== undefined || lambda !== undefined) {
          this.fail(slash.startOffset, `'/' cannot follow ${call !== undefined ? "a function call" : "a lambda"}`);
        }
        if (segments[segments.length - 1] === "$count") {
          this.fail(slash.startOffset, "'$count' must be the last segment of a path");
        }
      }
      this.OPTION3(() => {
        // ABNF anyExpr / allExpr
        const open = this.CONSUME2(LParen);
        const lambdaOp = segment.image.toLowerCase();
        if (!this.RECORDING_PHASE && lambdaOp !== "any" && lambdaOp !== "all") {
          this.fail(
            open.startOffset,
            `only the lambda operators any and all may follow a path with '(', not '${segment.image}'`,
          );
        }
        let variable: string | null = null;
        let predicate: Expr | null = null;
        this.OPTION4(() => {
          variable = this.CONSUME(Identifier).image;
          this.CONSUME(Colon);
          predicate = this.SUBRULE3(this.commonExpr);
        });
        const close = this.CONSUME2(RParen);
        // ABNF allExpr: unlike any(), all() has no form without a condition
        if (!this.RECORDING_PHASE && lambdaOp === "all" && variable === null) {
          this.fail(close.startOffset, "all() needs a condition, as in all(d: d/Quantity gt 0)");
        }
        lambda = {
          kind: "lambda",
          op: lambdaOp === "all" ? "all" : "any",
          collection: { kind: "path", segments: segments.slice(), pos },
          variable,
          predicate,
          pos,
        };
      });
      if (lambda === undefined) segments.push(pathSegment(segment));
    });
    return call ?? lambda ?? { kind: "path", segments, pos };
  }

  /**
   * An argument of a call: an expression, or, in `case(…)` only, `condition:value` (ABNF
   * `caseExpr`). One rule for both, since what is called is known only from its name.
   */
  protected callArgument = this.RULE("callArgument", (): CallArgument => {
    const value = this.SUBRULE(this.commonExpr);
    let branch: CallArgument["branch"] = null;
    this.OPTION(() => {
      const colon = this.CONSUME(Colon);
      branch = { expr: this.SUBRULE2(this.commonExpr), colon: colon.startOffset };
    });
    return { value, branch };
  });

  /** `name(args)` as a call, or as `case` when the name is `case` and every argument a branch */
  private callOf(name: IToken, args: readonly CallArgument[]): CallExpr | CaseExpr {
    const pos = name.startOffset;
    const lower = name.image.toLowerCase();
    // ABNF anyExpr/allExpr: a lambda follows the path of a collection
    if (lower === "any" || lower === "all") {
      this.fail(pos, `${name.image}() follows the path of a collection, as in Details/${lower}(d: d/Quantity gt 0)`);
    }
    if (lower === "case") {
      if (args.length === 0) this.fail(pos, "case() needs at least one branch, condition:value");
      const branches = args.map((arg) => {
        if (arg.branch === null) {
          return this.fail(
            arg.value.pos,
            `each argument of case() is condition:value, and '${printExpr(arg.value)}' has no ':'`,
          );
        }
        return { when: arg.value, value: arg.branch.expr };
      });
      return { kind: "case", branches, pos };
    }
    const branch = args.find((arg) => arg.branch !== null)?.branch;
    if (branch) this.fail(branch.colon, `only case() takes condition:value arguments, not ${name.image}()`);
    return { kind: "call", name: name.image, args: args.map((arg) => arg.value), pos };
  }

  /**
   * ABNF `listExpr`, right of `in`, at most `maxInListLength` items. The ABNF lists literals only;
   * here an item may be any expression (`Price in (Cost, 10)`, ast.ts), bound and compared like
   * the operand of `eq`. `()` is an empty list (nothing is in it: false).
   */
  protected listExpr = this.RULE("listExpr", (): Expr[] => {
    this.CONSUME(LParen);
    const items: Expr[] = [];
    this.OPTION(() => {
      items.push(this.SUBRULE(this.commonExpr));
      this.MANY(() => {
        this.CONSUME(Comma);
        const itemStart = this.LA(1).startOffset;
        const item = this.SUBRULE2(this.commonExpr);
        if (!this.RECORDING_PHASE && items.length >= this.limits.maxInListLength) {
          this.fail(itemStart, `'in' list has more than ${this.limits.maxInListLength} items`);
        }
        items.push(item);
      });
    });
    this.CONSUME(RParen);
    return items;
  });
}
