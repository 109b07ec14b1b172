/**
 * The position of a character inside a string value: for an expression error, point at the offending part of
 * `${{ … }}`, not just at the start of the string. Exact when the string is written on one line (plain,
 * single- or double-quoted); otherwise the start of the string.
 */
import type { Position, SourceDoc } from '../playbook/model.js';
import { LineTable } from './position-index.js';

const lineTables = new WeakMap<SourceDoc, LineTable>();

function lines(doc: SourceDoc): LineTable {
  let table = lineTables.get(doc);
  if (!table) {
    table = new LineTable(doc.text);
    lineTables.set(doc, table);
  }
  return table;
}

/** Where character `offset` of the string at `pointer` (whose value is `value`) is in the source. */
export function positionInString(doc: SourceDoc, pointer: string, value: string, offset: number): Position {
  const start = doc.positionOf(pointer, 'value');
  const line = lines(doc).lineText(start.line);
  if (line === undefined) return start;
  const from = start.col - 1;
  const quote = line[from];
  const columns =
    quote === '"' || quote === "'" ? quotedColumns(line, from, quote) : plainColumns(line, from, value);
  if (columns === undefined || columns.text !== value) return start;
  const col = columns.map[offset];
  return col === undefined ? start : { line: start.line, col: col + 1 };
}

interface Columns {
  /** the decoded text found on the line */
  text: string;
  /** for each character of the text, its 0-based column */
  map: number[];
}

function plainColumns(line: string, from: number, value: string): Columns | undefined {
  if (line.slice(from, from + value.length) !== value) return undefined;
  return { text: value, map: Array.from({ length: value.length + 1 }, (_, i) => from + i) };
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
};
const HEX_LENGTH: Readonly<Record<string, number>> = { x: 2, u: 4, U: 8 };

function quotedColumns(line: string, from: number, quote: string): Columns | undefined {
  let text = '';
  const map: number[] = [];
  let i = from + 1;
  while (i < line.length) {
    const c = line[i] as string;
    if (c === quote) {
      if (quote === "'" && line[i + 1] === "'") {
        map.push(i);
        text += "'";
        i += 2;
        continue;
      }
      map.push(i);
      return { text, map };
    }
    if (quote === '"' && c === '\\') {
      const next = line[i + 1] ?? '';
      const hex = HEX_LENGTH[next];
      let decoded: string | undefined;
      let width = 2;
      if (hex !== undefined) {
        const digits = line.slice(i + 2, i + 2 + hex);
        if (!/^[0-9a-fA-F]+$/.test(digits) || digits.length !== hex) return undefined;
        decoded = String.fromCodePoint(Number.parseInt(digits, 16));
        width = 2 + hex;
      } else {
        decoded = SIMPLE_ESCAPES[next];
      }
      if (decoded === undefined) return undefined;
      for (let k = 0; k < decoded.length; k++) map.push(i);
      text += decoded;
      i += width;
      continue;
    }
    map.push(i);
    text += c;
    i++;
  }
  return undefined;
}
