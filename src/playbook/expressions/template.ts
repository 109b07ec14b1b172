/**
 * Strings with `${{ … }}`: a string that is exactly one expression evaluates to its raw value; a string that
 * mixes text and expressions is interpolated. Parsed strings are cached: a fan-out step resolves the same
 * strings once per item.
 */
import type { Expr } from './ast.js';
import { ExpressionEvaluationError, ExpressionSyntaxError } from './errors.js';
import { evaluateExpression } from './evaluate.js';
import { parseExpression } from './parser.js';
import type { Scope } from './scope.js';
import { isPlainObject, toText, truthy } from './values.js';
import { childPointer } from '../pointer.js';

const OPEN = '${{';
const CLOSE = '}}';

/** One `${{ … }}` in a string: `start`/`end` span the delimiters. */
export interface Embedded {
  start: number;
  end: number;
  expr: Expr;
}

export interface Template {
  text: string;
  parts: Embedded[];
  /** the string is exactly one expression (surrounding whitespace allowed) */
  whole: boolean;
}

export function hasExpression(text: string): boolean {
  return text.includes(OPEN);
}

/** The end of the expression opened at `open` (the offset of its `}}`), skipping string literals. */
function findClose(text: string, open: number): number {
  const close = text.indexOf(CLOSE, open + OPEN.length);
  if (close >= 0 && !hasQuoteBefore(text, open + OPEN.length, close)) return close; // the usual: no literal
  let i = open + OPEN.length;
  while (i < text.length) {
    const c = text[i];
    if (c === "'" || c === '"') {
      i++;
      while (i < text.length && text[i] !== c) i += c === '"' && text[i] === '\\' ? 2 : 1;
      if (i >= text.length) break;
      i++;
      continue;
    }
    if (text.startsWith(CLOSE, i)) return i;
    i++;
  }
  throw new ExpressionSyntaxError(
    "unclosed expression: '${{' without '}}'",
    open,
    'end the expression with }}',
  );
}

/** A quote in `text[from, to)` (searched there only: a string may hold many expressions and no quote). */
function hasQuoteBefore(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x27) return true;
  }
  return false;
}

const cache = new Map<string, Template>();
const CACHE_LIMIT = 20_000;

/**
 * Parse every `${{ … }}` of `text`; throws ExpressionSyntaxError with the offset in `text`. Cached: a string is
 * parsed once however often it is evaluated.
 */
export function parseTemplate(text: string): Template {
  const cached = cache.get(text);
  if (cached) return cached;
  const template = readTemplate(text);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(text, template);
  return template;
}

/**
 * Parse every `${{ … }}` of `text`, without the cache: for validation, which reads each string of a file once
 * or twice in a row, and whose templates had better die young than fill the cache.
 */
export function readTemplate(text: string): Template {
  const parts: Embedded[] = [];
  let from = 0;
  for (let open = text.indexOf(OPEN); open >= 0; open = text.indexOf(OPEN, from)) {
    const close = findClose(text, open);
    parts.push({
      start: open,
      end: close + CLOSE.length,
      expr: parseExpression(text, open + OPEN.length, close),
    });
    from = close + CLOSE.length;
  }
  const first = parts[0];
  const whole =
    parts.length === 1 &&
    first !== undefined &&
    text.slice(0, first.start).trim() === '' &&
    text.slice(first.end).trim() === '';
  return { text, parts, whole };
}

/** The value of a string: its raw value when it is one expression, else the interpolated text. */
export function evaluateString(text: string, scope: Scope): unknown {
  if (!hasExpression(text)) return text;
  const template = parseTemplate(text);
  if (template.whole && template.parts[0])
    return evaluateExpression(template.parts[0].expr, scope, text) ?? null;
  let out = '';
  let from = 0;
  for (const part of template.parts) {
    out += text.slice(from, part.start) + toText(evaluateExpression(part.expr, scope, text));
    from = part.end;
  }
  return out + text.slice(from);
}

/** A bare expression, as `if:` accepts it: `inputs.mode == 'full'`. */
export function parseBare(text: string): Expr {
  return parseExpression(text);
}

/** `if:` — a boolean, `${{ expr }}`, or a bare expression; the result's truthiness as in JavaScript. */
export function evaluateCondition(cond: string | boolean, scope: Scope): boolean {
  if (typeof cond === 'boolean') return cond;
  if (hasExpression(cond)) return truthy(evaluateString(cond, scope));
  return truthy(evaluateExpression(parseBare(cond), scope, cond));
}

/**
 * A deep copy of `value` with every string resolved. `skip(pointer)` (pointers relative to `value`) leaves that
 * subtree as it is, for fields a step evaluates itself. Errors say where: `at /env/TOKEN: …`.
 */
export function resolveDeep(value: unknown, scope: Scope, skip?: (pointer: string) => boolean): unknown {
  return resolveAt(value, scope, skip, '');
}

function resolveAt(
  value: unknown,
  scope: Scope,
  skip: ((pointer: string) => boolean) | undefined,
  pointer: string,
): unknown {
  if (skip?.(pointer)) return copy(value);
  if (typeof value === 'string') {
    try {
      return evaluateString(value, scope);
    } catch (error) {
      if (!(error instanceof ExpressionEvaluationError) || pointer === '') throw error;
      throw new ExpressionEvaluationError(`at ${pointer}: ${error.message}`, error.hint);
    }
  }
  if (Array.isArray(value))
    return value.map((element, i) => resolveAt(element, scope, skip, childPointer(pointer, i)));
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [
        key,
        resolveAt(child, scope, skip, childPointer(pointer, key)),
      ]),
    );
  }
  return value;
}

function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, copy(child)]));
  return value;
}
