/** Splits the text of one expression (between `${{` and `}}`, or a bare `if:`) into tokens. */
import { ExpressionSyntaxError } from './errors.js';

export type Token =
  | { kind: 'number'; value: number; start: number; end: number }
  | { kind: 'string'; value: string; start: number; end: number }
  | { kind: 'ident'; value: string; start: number; end: number }
  | { kind: 'punct'; value: '(' | ')' | '[' | ']' | '.' | ','; start: number; end: number }
  | { kind: 'op'; value: Operator; start: number; end: number }
  | { kind: 'eof'; value: ''; start: number; end: number };

export type Operator = '!' | '==' | '!=' | '<' | '<=' | '>' | '>=' | '&&' | '||';

/** `==` `!=` `<=` `>=` `&&` `||` starting with `first`, `second`: without building a string per character. */
function twoCharOperator(first: string, second: string | undefined): Operator | undefined {
  if (second === '=') {
    if (first === '=' || first === '!' || first === '<' || first === '>') return `${first}=` as Operator;
  } else if ((first === '&' || first === '|') && second === first) {
    return first === '&' ? '&&' : '||';
  }
  return undefined;
}
const ONE_CHAR_OPERATORS: ReadonlySet<string> = new Set(['!', '<', '>']);
const PUNCTUATION: ReadonlySet<string> = new Set(['(', ')', '[', ']', '.', ',']);
const MISTAKES: Readonly<Record<string, string>> = {
  '=': "compare with '=='",
  '&': "'and' is written '&&'",
  '|': "'or' is written '||'",
  '+': 'expressions have no arithmetic; build strings with format()',
  '-': 'expressions have no arithmetic',
  '*': 'expressions have no arithmetic',
  '/': 'expressions have no arithmetic',
  '?': 'there is no ?: operator; use `cond && a || b`',
  '{': 'an expression ends with }}; to build a string use format()',
  '}': 'an expression ends with }}',
  $: 'expressions do not nest: write `${{ inputs.a }}`, not `${{ ${{ … }} }}`',
};

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isLetter = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isIdentPart = (c: string | undefined): boolean =>
  c !== undefined && c.length === 1 && (isLetter(c) || isDigit(c) || c === '-');

function isDigitCode(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isLetterCode(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
}

/** The end of the identifier at `from` (letters, `_`, then digits and `-` too), or `from` when there is none. */
export function identifierEnd(text: string, from: number, to: number): number {
  if (from >= to || !isLetterCode(text.charCodeAt(from))) return from;
  let i = from + 1;
  while (i < to) {
    const c = text.charCodeAt(i);
    if (!isLetterCode(c) && !isDigitCode(c) && c !== 0x2d) break;
    i++;
  }
  return i;
}

/** Tokens of `text` between `from` and `to`; offsets are offsets in `text`. */
export function tokenize(text: string, from = 0, to = text.length): Token[] {
  const tokens: Token[] = [];
  let i = from;
  while (i < to) {
    // identifiers first: most tokens are
    const end = identifierEnd(text, i, to);
    if (end > i) {
      tokens.push({ kind: 'ident', value: text.slice(i, end), start: i, end });
      i = end;
      continue;
    }
    const c = text[i] as string;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    const start = i;
    const two = i + 1 < to ? twoCharOperator(c, text[i + 1]) : undefined;
    if (two !== undefined) {
      tokens.push({ kind: 'op', value: two, start, end: i + 2 });
      i += 2;
    } else if (ONE_CHAR_OPERATORS.has(c)) {
      tokens.push({ kind: 'op', value: c as Operator, start, end: i + 1 });
      i++;
    } else if (PUNCTUATION.has(c)) {
      tokens.push({ kind: 'punct', value: c as '(', start, end: i + 1 });
      i++;
    } else if (isDigit(c) || (c === '-' && isDigit(text[i + 1]))) {
      i = readNumber(text, i, to, tokens);
    } else if (c === "'" || c === '"') {
      i = readString(text, i, to, tokens);
    } else {
      throw new ExpressionSyntaxError(`unexpected character '${c}'`, start, MISTAKES[c]);
    }
  }
  tokens.push({ kind: 'eof', value: '', start: to, end: to });
  return tokens;
}

const NUMBER = /-?(0x[0-9a-fA-F]+|\d+(\.\d+)?([eE][+-]?\d+)?)/y;

function readNumber(text: string, start: number, to: number, tokens: Token[]): number {
  NUMBER.lastIndex = start;
  let literal = NUMBER.exec(text)?.[0] ?? '';
  // the expression ends at `}}` or the end of the text, where no number goes on; cut it there all the same
  if (start + literal.length > to) {
    NUMBER.lastIndex = 0;
    literal = NUMBER.exec(text.slice(start, to))?.[0] ?? '';
  }
  const end = start + literal.length;
  if (isIdentPart(text[end]) && end < to) {
    throw new ExpressionSyntaxError(`malformed number '${text.slice(start, end + 1)}'`, start);
  }
  if (text[end] === '.' && isDigit(text[end + 1])) {
    throw new ExpressionSyntaxError(`malformed number '${literal}.'`, start);
  }
  const negative = literal.startsWith('-');
  const digits = negative ? literal.slice(1) : literal;
  const magnitude = digits.startsWith('0x') ? Number.parseInt(digits.slice(2), 16) : Number(digits);
  tokens.push({ kind: 'number', value: negative ? -magnitude : magnitude, start, end });
  return end;
}

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '\\': '\\',
  '/': '/',
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
};

/** `'…'` with `''` for a quote (as in GitHub Actions), or `"…"` with backslash escapes. */
function readString(text: string, start: number, to: number, tokens: Token[]): number {
  const quote = text[start];
  let value = '';
  let i = start + 1;
  while (i < to) {
    const c = text[i] as string;
    if (c === quote) {
      if (quote === "'" && text[i + 1] === "'" && i + 1 < to) {
        value += "'";
        i += 2;
        continue;
      }
      tokens.push({ kind: 'string', value, start, end: i + 1 });
      return i + 1;
    }
    if (c === '\\' && quote === '"') {
      const next = text[i + 1];
      if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
        value += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
        i += 6;
        continue;
      }
      const escaped = next === undefined ? undefined : ESCAPES[next];
      if (escaped === undefined || i + 1 >= to) {
        throw new ExpressionSyntaxError(
          `unknown escape '\\${next ?? ''}' in a string`,
          i,
          'or use single quotes',
        );
      }
      value += escaped;
      i += 2;
      continue;
    }
    value += c;
    i++;
  }
  throw new ExpressionSyntaxError('unclosed string', start, `close it with ${quote === "'" ? "'" : '"'}`);
}
