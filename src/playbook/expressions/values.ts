/** Plain data as expressions see it: type names, truthiness, equality, ordering, text. */
import { ExpressionEvaluationError } from './errors.js';

export type TypeName = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function typeName(value: unknown): TypeName {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'boolean':
      return 'boolean';
    case 'number':
    case 'bigint':
      return 'number';
    case 'string':
      return 'string';
    default:
      return 'object';
  }
}

/** Truthiness as in JavaScript: false, 0, NaN, '', null are false; every array and object is true. */
export function truthy(value: unknown): boolean {
  return Boolean(value);
}

/** The text of a value inside a string: objects and arrays as JSON, null as the empty string. */
export function toText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return JSON.stringify(value);
}

/** Structural equality of plain data without conversions; numbers compare numerically. */
export function sameValue(a: unknown, b: unknown): boolean {
  const ta = typeName(a);
  if (ta !== typeName(b)) return false;
  if (ta === 'null') return true;
  if (ta === 'array') {
    const x = a as unknown[];
    const y = b as unknown[];
    return x.length === y.length && x.every((v, i) => sameValue(v, y[i]));
  }
  if (ta === 'object') {
    const x = a as Record<string, unknown>;
    const y = b as Record<string, unknown>;
    const keys = Object.keys(x);
    return (
      keys.length === Object.keys(y).length && keys.every((k) => Object.hasOwn(y, k) && sameValue(x[k], y[k]))
    );
  }
  return a === b;
}

function refuseStringNumber(a: unknown, b: unknown, operator: string): void {
  const ta = typeName(a);
  const tb = typeName(b);
  if ((ta === 'string' && tb === 'number') || (ta === 'number' && tb === 'string')) {
    throw new ExpressionEvaluationError(
      `cannot compare a ${ta} with a ${tb} using '${operator}'`,
      'make both sides the same type: declare the input with `type: integer` or `type: number`, or compare with a quoted string',
    );
  }
}

/** `==`: like sameValue, but a string compared with a number is a mistake, not `false`. */
export function equals(a: unknown, b: unknown): boolean {
  refuseStringNumber(a, b, '==');
  return sameValue(a, b);
}

/** `<`, `<=`, `>`, `>=` between two numbers or two strings. */
export function order(a: unknown, b: unknown, operator: '<' | '<=' | '>' | '>='): boolean {
  refuseStringNumber(a, b, operator);
  const ta = typeName(a);
  const tb = typeName(b);
  if (ta !== tb || (ta !== 'number' && ta !== 'string')) {
    throw new ExpressionEvaluationError(
      `cannot compare a ${ta} with a ${tb} using '${operator}'`,
      'only two numbers or two strings can be ordered',
    );
  }
  const x = a as number | string;
  const y = b as number | string;
  switch (operator) {
    case '<':
      return x < y;
    case '<=':
      return x <= y;
    case '>':
      return x > y;
    case '>=':
      return x >= y;
  }
}
