/**
 * Recursive-descent parser. Precedence, lowest first: `||`, `&&`, `==` `!=`, `<` `<=` `>` `>=`, `!`, then
 * property access, indexing and calls.
 */
import { didYouMean } from '../closest.js';
import type { Expr } from './ast.js';
import { ExpressionSyntaxError } from './errors.js';
import { FUNCTIONS } from './functions.js';
import { identifierEnd, tokenize, type Operator, type Token } from './tokenizer.js';

/** Parse the expression in `text[from, to)`; offsets in the result and in errors are offsets in `text`. */
export function parseExpression(text: string, from = 0, to = text.length): Expr {
  const path = parsePath(text, from, to);
  if (path) return path;
  const tokens = tokenize(text, from, to);
  if (tokens.length > MAX_EXPRESSION_TOKENS) {
    throw new ExpressionSyntaxError(
      `expression too long: ${tokens.length - 1} tokens, at most ${MAX_EXPRESSION_TOKENS} allowed`,
      from,
      'split it over several vars, or compute the value in an earlier step',
    );
  }
  return new Parser(text, tokens, from).parse();
}

/** Longer than any useful expression; bounds the parser's and the evaluator's work (and their stack). */
export const MAX_EXPRESSION_TOKENS = 1000;
/** Parentheses, `!`, indexes and call arguments nest at most this deep. */
export const MAX_EXPRESSION_DEPTH = 32;

const KEYWORDS: Readonly<Record<string, null | boolean>> = { true: true, false: false, null: null };

type CompareOperator = Exclude<Operator, '!' | '&&' | '||'>;

/** Binding strength of the binary operators, loosest first; `!` is unary (0: never binary). */
const PRECEDENCE: Readonly<Record<Operator, number>> = {
  '||': 1,
  '&&': 2,
  '==': 3,
  '!=': 3,
  '<': 4,
  '<=': 4,
  '>': 4,
  '>=': 4,
  '!': 0,
};
const LOOSEST = 1;

/** Longer paths than this are left to the parser (which bounds their tokens). */
const MAX_PATH_LENGTH = 256;

/**
 * `inputs.env`, `steps.build.outputs.digest`, `inputs.nodes[2]`: most expressions are a path, read here in one
 * pass without tokens; anything else, or anything unusual about a path (spaces inside, a keyword, a quoted or
 * computed index), is left to the parser. The tree is the one the parser builds.
 */
function parsePath(text: string, from: number, to: number): Expr | undefined {
  let start = from;
  while (start < to && isBlank(text.charCodeAt(start))) start++;
  let end = to;
  while (end > start && isBlank(text.charCodeAt(end - 1))) end--;
  if (end - start > MAX_PATH_LENGTH) return undefined;
  let i = identifierEnd(text, start, end);
  if (i === start) return undefined;
  const name = text.slice(start, i);
  if (Object.hasOwn(KEYWORDS, name)) return undefined;
  let expr: Expr = { type: 'root', name, start, end: i };
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === 0x2e) {
      // .name
      const next = identifierEnd(text, i + 1, end);
      if (next === i + 1) return undefined;
      expr = { type: 'member', object: expr, property: text.slice(i + 1, next), start, end: next };
      i = next;
    } else if (c === 0x5b) {
      // [digits], without a leading zero
      let close = i + 1;
      while (close < end && isDigitCode(text.charCodeAt(close))) close++;
      const digits = close - i - 1;
      if (digits === 0 || text.charCodeAt(close) !== 0x5d) return undefined;
      if (digits > 1 && text.charCodeAt(i + 1) === 0x30) return undefined;
      const index: Expr = {
        type: 'literal',
        value: Number(text.slice(i + 1, close)),
        start: i + 1,
        end: close,
      };
      expr = { type: 'index', object: expr, index, start, end: close + 1 };
      i = close + 1;
    } else {
      return undefined;
    }
  }
  return expr;
}

/** What the tokenizer skips between tokens. */
function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigitCode(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

class Parser {
  private position = 0;
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly tokens: Token[],
    private readonly from: number,
  ) {}

  parse(): Expr {
    if (this.peek().kind === 'eof') throw new ExpressionSyntaxError('empty expression', this.from);
    const expr = this.binary(LOOSEST);
    const rest = this.peek();
    if (rest.kind !== 'eof') throw this.unexpected(rest, 'an operator or the end of the expression');
    return expr;
  }

  private peek(): Token {
    return this.tokens[this.position] as Token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'eof') this.position++;
    return token;
  }

  /** The next token is the operator `a` or `b`. */
  private isOperator(a: Operator, b: Operator = a): boolean {
    const token = this.peek();
    return token.kind === 'op' && (token.value === a || token.value === b);
  }

  private isPunct(value: string): boolean {
    const token = this.peek();
    return token.kind === 'punct' && token.value === value;
  }

  private expectPunct(value: string, what: string): Token {
    const token = this.next();
    if (token.kind !== 'punct' || token.value !== value) throw this.unexpected(token, what);
    return token;
  }

  /** Parses a nested part (inside `(`, `[`, a call or after `!`) that starts at `offset`, bounded in depth. */
  private nested<T>(offset: number, parse: () => T): T {
    if (++this.depth > MAX_EXPRESSION_DEPTH) {
      throw new ExpressionSyntaxError(
        `expression nests deeper than ${MAX_EXPRESSION_DEPTH} levels`,
        offset,
        'remove redundant parentheses or negations, or split the expression over several vars',
      );
    }
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private unexpected(token: Token, expected: string): ExpressionSyntaxError {
    if (token.kind === 'eof')
      return new ExpressionSyntaxError(`unexpected end of expression, expected ${expected}`, token.start);
    const text = this.text.slice(token.start, token.end);
    return new ExpressionSyntaxError(`unexpected '${text}', expected ${expected}`, token.start);
  }

  /**
   * Binary operators by precedence climbing: the operators that bind at least as tightly as `min`, all
   * left-associative (the same trees as one function per level, with fewer calls per operand).
   */
  private binary(min: number): Expr {
    let left = this.unary();
    for (;;) {
      const token = this.peek();
      if (token.kind !== 'op') return left;
      const precedence = PRECEDENCE[token.value];
      if (precedence < min) return left;
      this.next();
      const right = this.binary(precedence + 1);
      const span = { left, right, start: left.start, end: right.end };
      left =
        token.value === '||' || token.value === '&&'
          ? { type: 'logical', operator: token.value, ...span }
          : { type: 'compare', operator: token.value as CompareOperator, ...span };
    }
  }

  private unary(): Expr {
    if (this.isOperator('!')) {
      const bang = this.next();
      const operand = this.nested(bang.start, () => this.unary());
      return { type: 'not', operand, start: bang.start, end: operand.end };
    }
    return this.postfix();
  }

  private postfix(): Expr {
    let expr = this.primary();
    for (;;) {
      if (this.isPunct('.')) {
        this.next();
        const name = this.next();
        if (name.kind !== 'ident') throw this.unexpected(name, 'a property name after .');
        expr = { type: 'member', object: expr, property: name.value, start: expr.start, end: name.end };
      } else if (this.isPunct('[')) {
        const open = this.next();
        const index = this.nested(open.start, () => this.binary(LOOSEST));
        const close = this.expectPunct(']', "']'");
        expr =
          index.type === 'literal' && typeof index.value === 'string'
            ? { type: 'member', object: expr, property: index.value, start: expr.start, end: close.end }
            : { type: 'index', object: expr, index, start: expr.start, end: close.end };
      } else {
        return expr;
      }
    }
  }

  private primary(): Expr {
    const token = this.next();
    switch (token.kind) {
      case 'number':
      case 'string':
        return { type: 'literal', value: token.value, start: token.start, end: token.end };
      case 'ident': {
        if (Object.hasOwn(KEYWORDS, token.value)) {
          return {
            type: 'literal',
            value: KEYWORDS[token.value] ?? null,
            start: token.start,
            end: token.end,
          };
        }
        if (this.isPunct('(')) return this.call(token);
        return { type: 'root', name: token.value, start: token.start, end: token.end };
      }
      case 'punct':
        if (token.value === '(') {
          const inner = this.nested(token.start, () => this.binary(LOOSEST));
          this.expectPunct(')', "')'");
          return inner;
        }
        throw this.unexpected(token, 'a value');
      default:
        throw this.unexpected(token, 'a value');
    }
  }

  private call(name: Token & { kind: 'ident' }): Expr {
    const fn = FUNCTIONS.get(name.value);
    if (!fn) {
      throw new ExpressionSyntaxError(
        `unknown function '${name.value}'`,
        name.start,
        didYouMean(name.value, FUNCTIONS.keys()) ?? `functions: ${[...FUNCTIONS.keys()].join(', ')}`,
      );
    }
    this.next();
    const args: Expr[] = [];
    if (!this.isPunct(')')) {
      for (;;) {
        args.push(this.nested(name.start, () => this.binary(LOOSEST)));
        if (!this.isPunct(',')) break;
        this.next();
      }
    }
    const close = this.expectPunct(')', "',' or ')'");
    if (args.length < fn.minArgs || args.length > fn.maxArgs) {
      const count =
        fn.minArgs === fn.maxArgs
          ? String(fn.minArgs)
          : fn.maxArgs === Infinity
            ? `at least ${fn.minArgs}`
            : `${fn.minArgs} or ${fn.maxArgs}`;
      const plural = (fn.maxArgs === Infinity ? fn.minArgs : fn.maxArgs) === 1 ? '' : 's';
      throw new ExpressionSyntaxError(
        `${name.value}() takes ${count} argument${plural}, got ${args.length}`,
        name.start,
        `use ${fn.signature}`,
      );
    }
    const problem = fn.checkArgs?.(args);
    if (problem) throw new ExpressionSyntaxError(problem.message, args[0]?.start ?? name.start, problem.hint);
    return { type: 'call', name: name.value, args, start: name.start, end: close.end };
  }
}
