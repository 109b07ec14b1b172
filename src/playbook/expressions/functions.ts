/** The functions an expression may call: a fixed set over plain data. */
import type { Expr } from './ast.js';
import { ExpressionEvaluationError } from './errors.js';
import { isPlainObject, sameValue, toText, typeName } from './values.js';

export interface ExpressionFunction {
  minArgs: number;
  maxArgs: number;
  /** `contains(haystack, needle)`: shown in messages */
  signature: string;
  call(args: readonly unknown[]): unknown;
  /** a problem the arguments show before the run (a literal format template that needs more values) */
  checkArgs?(args: readonly Expr[]): { message: string; hint: string } | undefined;
}

function typeError(
  signature: string,
  which: string,
  expected: string,
  got: unknown,
): ExpressionEvaluationError {
  return new ExpressionEvaluationError(`${signature}: ${which} must be ${expected}, got ${typeName(got)}`);
}

function stringArg(signature: string, which: string, value: unknown): string {
  if (typeof value !== 'string') throw typeError(signature, which, 'a string', value);
  return value;
}

/** A piece of a format() template: literal text, or the placeholder `{index}`. */
type FormatPiece = { text: string } | { index: number };

/** Splits a format() template, or says what is wrong with it (a bad placeholder or a lone brace). */
function formatPieces(template: string): FormatPiece[] | { problem: string; hint: string } {
  const pieces: FormatPiece[] = [];
  let text = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    const next = template[i + 1];
    if ((c === '{' && next === '{') || (c === '}' && next === '}')) {
      text += c;
      i++;
    } else if (c === '{') {
      const close = template.indexOf('}', i);
      const index = close < 0 ? NaN : Number(template.slice(i + 1, close));
      if (!Number.isInteger(index) || index < 0) {
        return {
          problem: `bad placeholder at character ${i + 1}`,
          hint: 'placeholders are {0}, {1}, …; write {{ or }} for a brace',
        };
      }
      pieces.push({ text }, { index });
      text = '';
      i = close;
    } else if (c === '}') {
      return { problem: `lone '}' at character ${i + 1}`, hint: 'write }} for a brace' };
    } else {
      text += c;
    }
  }
  pieces.push({ text });
  return pieces;
}

/** What is wrong with a format() call whose template is known before the run, if anything. */
function formatArgsProblem(
  template: string,
  valueCount: number,
): { message: string; hint: string } | undefined {
  const pieces = formatPieces(template);
  if (!Array.isArray(pieces)) return { message: `format(): ${pieces.problem}`, hint: pieces.hint };
  const highest = Math.max(-1, ...pieces.map((p) => ('index' in p ? p.index : -1)));
  if (highest < valueCount) return undefined;
  return {
    message: `format(): placeholder {${highest}} but only ${valueCount} value(s) given`,
    hint: `give a value for each placeholder {0}…{${highest}} after the template`,
  };
}

function format(signature: string, template: string, args: readonly unknown[]): string {
  const pieces = formatPieces(template);
  if (!Array.isArray(pieces))
    throw new ExpressionEvaluationError(`${signature}: ${pieces.problem}`, pieces.hint);
  let out = '';
  for (const piece of pieces) {
    if ('text' in piece) {
      out += piece.text;
      continue;
    }
    if (piece.index >= args.length) {
      throw new ExpressionEvaluationError(
        `${signature}: placeholder {${piece.index}} but only ${args.length} value(s) given`,
      );
    }
    out += toText(args[piece.index]);
  }
  return out;
}

export const FUNCTIONS: ReadonlyMap<string, ExpressionFunction> = new Map<string, ExpressionFunction>([
  [
    'contains',
    {
      minArgs: 2,
      maxArgs: 2,
      signature: 'contains(haystack, needle)',
      call([haystack, needle]) {
        if (typeof haystack === 'string') {
          if (typeof needle === 'object' && needle !== null) {
            throw typeError('contains(haystack, needle)', 'needle', 'a string, number or boolean', needle);
          }
          return haystack.includes(toText(needle));
        }
        if (Array.isArray(haystack)) return haystack.some((element) => sameValue(element, needle));
        throw typeError('contains(haystack, needle)', 'haystack', 'a string or an array', haystack);
      },
    },
  ],
  [
    'startsWith',
    {
      minArgs: 2,
      maxArgs: 2,
      signature: 'startsWith(text, prefix)',
      call: ([text, prefix]) =>
        stringArg('startsWith(text, prefix)', 'text', text).startsWith(
          stringArg('startsWith(text, prefix)', 'prefix', prefix),
        ),
    },
  ],
  [
    'endsWith',
    {
      minArgs: 2,
      maxArgs: 2,
      signature: 'endsWith(text, suffix)',
      call: ([text, suffix]) =>
        stringArg('endsWith(text, suffix)', 'text', text).endsWith(
          stringArg('endsWith(text, suffix)', 'suffix', suffix),
        ),
    },
  ],
  [
    'format',
    {
      minArgs: 1,
      maxArgs: Infinity,
      signature: "format('{0} of {1}', a, b)",
      call: ([template, ...args]) =>
        format('format()', stringArg('format()', 'the template', template), args),
      checkArgs: ([template, ...values]) =>
        template?.type === 'literal' && typeof template.value === 'string'
          ? formatArgsProblem(template.value, values.length)
          : undefined,
    },
  ],
  [
    'join',
    {
      minArgs: 1,
      maxArgs: 2,
      signature: 'join(array, separator)',
      call([list, separator = ',']) {
        const sep = stringArg('join(array, separator)', 'separator', separator);
        if (typeof list === 'string') return list;
        if (!Array.isArray(list)) throw typeError('join(array, separator)', 'array', 'an array', list);
        return list.map(toText).join(sep);
      },
    },
  ],
  [
    'length',
    {
      minArgs: 1,
      maxArgs: 1,
      signature: 'length(value)',
      call([value]) {
        if (typeof value === 'string' || Array.isArray(value)) return value.length;
        if (isPlainObject(value)) return Object.keys(value).length;
        throw typeError('length(value)', 'value', 'a string, an array or an object', value);
      },
    },
  ],
  [
    'toJSON',
    {
      minArgs: 1,
      maxArgs: 1,
      signature: 'toJSON(value)',
      call: ([value]) => JSON.stringify(value ?? null),
    },
  ],
  [
    'fromJSON',
    {
      minArgs: 1,
      maxArgs: 1,
      signature: 'fromJSON(text)',
      call([text]) {
        const source = stringArg('fromJSON(text)', 'text', text);
        try {
          return JSON.parse(source) as unknown;
        } catch (error) {
          // JSON.parse quotes the text in its message; the text may hold a secret, so it stays out.
          if (!(error instanceof SyntaxError)) throw error;
          throw new ExpressionEvaluationError('fromJSON(text): the text is not valid JSON');
        }
      },
    },
  ],
  [
    'keys',
    {
      minArgs: 1,
      maxArgs: 1,
      signature: 'keys(object)',
      call([value]) {
        if (!isPlainObject(value)) throw typeError('keys(object)', 'object', 'an object', value);
        return Object.keys(value);
      },
    },
  ],
]);
