/** The parsed form of one expression. Offsets are offsets in the text that was parsed. */
import type { Operator } from './tokenizer.js';

interface Span {
  start: number;
  end: number;
}

export type Expr =
  | (Span & { type: 'literal'; value: null | boolean | number | string })
  /** a name the expression starts from: `inputs`, `steps`, … */
  | (Span & { type: 'root'; name: string })
  /** `a.b` or `a['b']` */
  | (Span & { type: 'member'; object: Expr; property: string })
  /** `a[expr]` with a computed or numeric index */
  | (Span & { type: 'index'; object: Expr; index: Expr })
  | (Span & { type: 'call'; name: string; args: Expr[] })
  | (Span & { type: 'not'; operand: Expr })
  | (Span & { type: 'compare'; operator: Exclude<Operator, '!' | '&&' | '||'>; left: Expr; right: Expr })
  | (Span & { type: 'logical'; operator: '&&' | '||'; left: Expr; right: Expr });
