/**
 * Folds the flat `operand (operator operand)*` sequence the grammar reads (as the OData ABNF
 * `commonExpr` does) into a tree by operator precedence (URL conventions 5.1.1.1). Iterative
 * shunting-yard, so a long `a or b or c …` chain costs no stack; all operators are left-associative.
 */
import type { BinaryOperator, Expr, InExpr } from "./ast.js";
import { Precedence, precedenceOf } from "./operator-precedence.js";

/** The list right of `in`; every other operand is an expression. */
export type Operand = Expr | readonly Expr[];

export interface OperatorSequence {
  /** operands[0] is the first operand; operands[i + 1] follows ops[i] */
  readonly operands: Operand[];
  /** start offset of each operand's text (its first token, a `(` included) */
  readonly starts: number[];
  readonly ops: (BinaryOperator | "in")[];
  readonly opPositions: number[];
}

export type Fail = (position: number, problem: string) => never;

/** Operands and starts waiting for their operator, and the indexes (into `ops`) of pending operators. */
interface FoldState {
  readonly seq: OperatorSequence;
  readonly out: Operand[];
  readonly outStarts: number[];
  readonly pending: number[];
  readonly fail: Fail;
}

export function foldOperators(seq: OperatorSequence, fail: Fail): Expr {
  const { operands, starts, ops, opPositions } = seq;
  const state: FoldState = { seq, out: [operands[0] as Operand], outStarts: [starts[0] as number], pending: [], fail };
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k] as BinaryOperator | "in";
    const precedence = precedenceOf(op);
    // `A in (1,2) add 3` would make the list an operand of `add`
    if (k > 0 && ops[k - 1] === "in" && precedence > Precedence.relational) {
      fail(opPositions[k] as number, `'${op}' cannot follow an 'in' list; add parentheses`);
    }
    while (
      state.pending.length > 0 &&
      precedenceOf(ops[state.pending[state.pending.length - 1] as number] as BinaryOperator | "in") >= precedence
    ) {
      reduce(state);
    }
    state.pending.push(k);
    state.out.push(operands[k + 1] as Operand);
    state.outStarts.push(starts[k + 1] as number);
  }
  while (state.pending.length > 0) reduce(state);
  return state.out[0] as Expr;
}

/** Replaces the top two operands by the node of the top pending operator. */
function reduce(state: FoldState): void {
  const { seq, out, outStarts, pending } = state;
  const k = pending.pop() as number;
  const op = seq.ops[k] as BinaryOperator | "in";
  const right = out.pop() as Operand;
  outStarts.pop();
  const left = out.pop() as Operand;
  // the node starts where its left operand starts; that start stays on the stack for it
  const pos = outStarts[outStarts.length - 1] as number;
  // a list only ever stands right of `in`, and foldOperators keeps tighter operators off it
  if (isList(left)) state.fail(seq.opPositions[k] as number, `'${op}' cannot follow an 'in' list`);
  if (op === "in") {
    out.push({ kind: "in", operand: left, list: right as InExpr["list"], pos });
  } else {
    if (isList(right)) state.fail(seq.opPositions[k] as number, `expected an expression after '${op}'`);
    out.push({ kind: "binary", op, left, right, pos });
  }
}

function isList(operand: Operand): operand is readonly Expr[] {
  return Array.isArray(operand);
}
