/**
 * Limits on what a YAML file may be, checked on its bytes and text before any parser sees it: text that is not
 * UTF-8, nesting deeper than any playbook needs (which would exhaust a recursive parser's stack), and more
 * aliases than any playbook uses (an alias bomb). Each is refused with the line and column where it happens.
 */
import { isUtf8 } from 'node:buffer';
import type { Diagnostic } from './diagnostics.js';

/** Deeper than any real playbook, target or inputs file nests; far below what exhausts the stack. */
export const MAX_NESTING = 64;
/** A playbook reuses a block with an alias a few times; thousands is an attack on memory. */
export const MAX_ALIASES = 256;

export interface Decoded {
  text: string;
  diagnostics: Diagnostic[];
}

/** Line and column (1-based, in characters) of `offset` in `text`. */
function lineCol(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, col: offset - lineStart + 1 };
}

/** Offset of the first byte of `bytes` that is not part of a well-formed UTF-8 sequence, or -1. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return -1; // native, and what almost every file is: the loop below only says where
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [need, min] = [1, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [need, min] = [2, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [need, min] = [3, 0x10000];
    else return i;
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

/**
 * The text of a file's bytes, or a diagnostic at the first byte that is not UTF-8. A UTF-8 byte order mark is
 * dropped.
 */
export function decodeUtf8(file: string, bytes: Uint8Array): Decoded {
  const bad = firstInvalidUtf8(bytes);
  if (bad < 0) {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    return { text: text.startsWith('\uFEFF') ? text.slice(1) : text, diagnostics: [] };
  }
  const before = Buffer.from(bytes.buffer, bytes.byteOffset, bad).toString('utf8');
  const { line, col } = lineCol(before, before.length);
  const byte = (bytes[bad] ?? 0).toString(16).padStart(2, '0').toUpperCase();
  return {
    text: '',
    diagnostics: [
      {
        file,
        line,
        col,
        pointer: '',
        rule: 'encoding',
        message: `the file is not UTF-8: byte 0x${byte} at offset ${bad} does not start a valid character`,
        expected: 'UTF-8 text',
        hint: 'save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`), or remove the stray byte',
      },
    ],
  };
}

/**
 * Nesting and alias problems of YAML `text`, found by one pass over it: block nesting by indentation (and `- `
 * sequence entries on one line), flow nesting by brackets outside quotes and comments, and alias count.
 */
export function structureProblems(file: string, text: string): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const at = (offset: number, message: string, expected: string, hint: string): void => {
    problems.push({ file, ...lineCol(text, offset), pointer: '', rule: 'limits', message, expected, hint });
  };
  const indents: number[] = [];
  let flow = 0;
  let aliases = 0;
  let lineStart = 0;
  /** the indentation of a line that opened a block scalar (`|`, `>`): deeper lines are its text, not YAML */
  let scalarIndent = -1;
  while (lineStart <= text.length && problems.length === 0) {
    const end = text.indexOf('\n', lineStart);
    const lineEnd = end < 0 ? text.length : end;
    let i = lineStart;
    if (flow === 0) {
      while (text[i] === ' ') i++;
      const blank = i >= lineEnd || text[i] === '#' || text[i] === '\r';
      if (!blank && scalarIndent >= 0 && i - lineStart > scalarIndent) {
        if (end < 0) break;
        lineStart = end + 1;
        continue;
      }
      if (!blank) scalarIndent = -1;
      if (!blank && hasIndicator(text, i, lineEnd) && BLOCK_SCALAR.test(text.slice(i, lineEnd)))
        scalarIndent = i - lineStart;
      if (!blank) {
        const indent = i - lineStart;
        while (indents.length > 0 && (indents[indents.length - 1] ?? 0) > indent) indents.pop();
        if (indents.length === 0 || (indents[indents.length - 1] ?? 0) < indent) indents.push(indent);
        // `- - - x`: each dash on one line opens another sequence
        while (text[i] === '-' && (text[i + 1] === ' ' || text[i + 1] === '\t')) {
          indents.push(i - lineStart + 2);
          i += 2;
          while (text[i] === ' ') i++;
        }
        if (indents.length > MAX_NESTING) {
          at(
            i,
            `this line nests ${indents.length} levels deep`,
            `at most ${MAX_NESTING} levels of nesting`,
            'flatten the structure: no playbook needs this depth',
          );
          break;
        }
      }
    }
    for (; i < lineEnd; i++) {
      const code = text.charCodeAt(i);
      // letters, digits and most punctuation mean nothing here: the characters below do
      if (!STRUCTURAL[code]) continue;
      const c = text[i];
      if (c === '"' || c === "'") {
        i = skipQuoted(text, i, c);
        if (i >= lineEnd) break;
        continue;
      }
      if (c === '#' && (i === lineStart || /\s/.test(text[i - 1] ?? ''))) break;
      if (c === '[' || c === '{') {
        flow++;
        if (flow + indents.length > MAX_NESTING) {
          at(
            i,
            `brackets nest ${flow + indents.length} levels deep here`,
            `at most ${MAX_NESTING} levels of nesting`,
            'flatten the structure: no playbook needs this depth',
          );
          break;
        }
      } else if (c === ']' || c === '}') flow = Math.max(0, flow - 1);
      else if (c === '*' && /[\s[{,:]/.test(text[i - 1] ?? ' ') && /[A-Za-z0-9_-]/.test(text[i + 1] ?? '')) {
        if (++aliases > MAX_ALIASES) {
          at(
            i,
            `more than ${MAX_ALIASES} aliases: expanding them could take unbounded memory`,
            `at most ${MAX_ALIASES} aliases (*name) in one file`,
            'write the repeated blocks out, or reuse fewer of them',
          );
          break;
        }
      }
    }
    if (end < 0 || i >= text.length) break;
    // a quoted string that went on past this line: carry on after its closing quote's line
    lineStart = i > lineEnd ? text.indexOf('\n', i) + 1 || text.length + 1 : end + 1;
  }
  return problems;
}

/** The characters the loop over a line acts on: quotes, comments, brackets, aliases. */
const STRUCTURAL = new Uint8Array(128);
for (const c of `"'#[]{}*`) STRUCTURAL[c.charCodeAt(0)] = 1;

/** Whether `text[from, to)` holds a `|` or `>`, without which no line opens a block scalar. */
function hasIndicator(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7c || c === 0x3e) return true;
  }
  return false;
}

/** A line that ends by opening a block scalar: `key: |`, `- >-`, `run: |2` (a comment may follow). */
const BLOCK_SCALAR = /(^|[:\s-])[|>][-+0-9]*\s*(#.*)?\r?$/;

/** The offset of the quote that closes the string opened at `open` (or the end of the text). */
function skipQuoted(text: string, open: number, quote: string): number {
  for (let i = open + 1; i < text.length; i++) {
    const c = text[i];
    if (quote === '"' && c === '\\') {
      i++;
      continue;
    }
    if (c === quote) {
      if (quote === "'" && text[i + 1] === "'") {
        i++;
        continue;
      }
      return i;
    }
  }
  return text.length;
}
