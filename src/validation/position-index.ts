/**
 * Where the nodes of a YAML text start, found in one linear pass over the text without composing a document:
 * the offsets the `yaml` package's Document gives its nodes, so a finding's `line:col` is the same, for a
 * fraction of the time and memory (for a 50 MB playbook about half a second and 100 MB, where the Document took
 * most of a minute and gigabytes). The index keeps, per node, where it starts (its key's span too, in a
 * mapping) and its place in the tree, in typed arrays.
 *
 * It covers what playbooks are written with: block and flow collections, plain, quoted and block scalars,
 * comments, blank lines, a leading `---`, CRLF line ends, tabs between tokens. It throws UnsupportedYaml, and
 * the caller asks the `yaml` Document instead, for anchors, aliases, tags, merge keys, explicit `?` keys,
 * collections as keys, directives, a tab in indentation, and for the few constructs where `yaml` reads a text
 * otherwise than js-yaml (continuation lines not indented deeper than their block, a `#` without a space before
 * it, a plain scalar on the line after its key beyond blank or comment lines, comments above an empty sequence
 * entry); so does a lookup whose path does not have the shape of the parsed data.
 */
import jsYaml from 'js-yaml';
import type { Position } from '../playbook/model.js';
import { parsePointer } from '../playbook/pointer.js';

/** The text uses something the index does not cover, or disagrees with the parsed data. */
export class UnsupportedYaml extends Error {}

const SCALAR = 0;
const MAP = 1;
const SEQ = 2;
const NONE = -1;

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const HASH = 0x23;
const COMMA = 0x2c;
const DASH = 0x2d;
const DOT = 0x2e;
const COLON = 0x3a;
const SINGLE_QUOTE = 0x27;
const BACKSLASH = 0x5c;

/**
 * Characters that give up when they start a node: properties, aliases, explicit keys, reserved, and a `#` that
 * no space separates from what comes before (js-yaml reads a comment, `yaml` an error).
 */
/** A set of ASCII characters, looked up by character code (a table: faster than a Set in the scan's loops). */
class CharClass {
  private readonly table = new Uint8Array(128);
  constructor(chars: string) {
    for (const c of chars) this.table[c.charCodeAt(0)] = 1;
  }

  has(code: number): boolean {
    return code < 128 && this.table[code] === 1;
  }
}

const UNSUPPORTED_START = new CharClass('&*!?%@`#');
const FLOW_INDICATOR = new CharClass(',[]{}');
const OPENS_FLOW = new CharClass('[{');
const BLOCK_SCALAR = new CharClass('|>');
const QUOTE = new CharClass(`"'`);

/** Plain scalars that the YAML 1.2 core schema reads as something other than their text (and `String()`s). */
const NOT_PLAIN_TEXT = /^(?:[-+.\d~]|(?:true|True|TRUE|false|False|FALSE|null|Null|NULL)$)/;
const INDEX_SEGMENT = /^(?:0|[1-9]\d*)$/;

function unsupported(what: string): never {
  throw new UnsupportedYaml(what);
}

/** Start offsets of the lines of a text: offset → line and column, line → its text. */
export class LineTable {
  private readonly starts: Int32Array;
  /** the number of lines */
  readonly count: number;

  constructor(private readonly text: string) {
    let starts = new Int32Array(Math.max(16, text.length >> 5));
    let count = 1;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
      if (count === starts.length) {
        const grown = new Int32Array(count * 2);
        grown.set(starts);
        starts = grown;
      }
      starts[count++] = i + 1;
    }
    this.starts = starts.subarray(0, count);
    this.count = count;
  }

  /** 1-based line and column (in UTF-16 code units, as `yaml`'s LineCounter counts) of `offset`. */
  position(offset: number): Position {
    const at = Math.max(0, Math.min(offset, this.text.length));
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= at) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, col: at - (this.starts[low] ?? 0) + 1 };
  }

  /** The text of 1-based line `line`, without its line break; undefined past the end. */
  lineText(line: number): string | undefined {
    const start = this.starts[line - 1];
    if (start === undefined) return undefined;
    const next = this.starts[line];
    const end = next === undefined ? this.text.length : next - 1;
    return this.text.slice(start, end > start && this.text.charCodeAt(end - 1) === CR ? end - 1 : end);
  }
}

/** The nodes, one slot each in parallel typed arrays, grown as the scan finds more. */
class Nodes {
  size = 0;
  kind = new Uint8Array(0);
  /** where the node starts; NONE for an empty node (`key:` with nothing after it) */
  start = new Int32Array(0);
  /** for a value in a mapping: its key's span; the key is a scalar, `keyQuote` its quote (0: plain) */
  keyStart = new Int32Array(0);
  keyEnd = new Int32Array(0);
  keyQuote = new Uint8Array(0);
  first = new Int32Array(0);
  next = new Int32Array(0);

  constructor(capacity: number) {
    this.grow(Math.max(16, capacity));
  }

  add(kind: number, start: number): number {
    if (this.size === this.kind.length) this.grow(this.size + (this.size >> 1));
    const id = this.size++;
    this.kind[id] = kind;
    this.start[id] = start;
    this.keyStart[id] = NONE;
    this.first[id] = NONE;
    this.next[id] = NONE;
    return id;
  }

  private grow(capacity: number): void {
    const copy = <T extends Int32Array | Uint8Array>(from: T, to: T): T => {
      to.set(from.subarray(0, this.size));
      return to;
    };
    this.kind = copy(this.kind, new Uint8Array(capacity));
    this.start = copy(this.start, new Int32Array(capacity));
    this.keyStart = copy(this.keyStart, new Int32Array(capacity));
    this.keyEnd = copy(this.keyEnd, new Int32Array(capacity));
    this.keyQuote = copy(this.keyQuote, new Uint8Array(capacity));
    this.first = copy(this.first, new Int32Array(capacity));
    this.next = copy(this.next, new Int32Array(capacity));
  }
}

/** Children of a collection as they are appended. */
class Children {
  private last = NONE;
  constructor(
    private readonly nodes: Nodes,
    private readonly parent: number,
  ) {}

  append(child: number): void {
    if (this.last === NONE) this.nodes.first[this.parent] = child;
    else this.nodes.next[this.last] = child;
    this.last = child;
  }
}

/** The scan: a recursive descent over the text that records where nodes start and skips everything else. */
class Scanner {
  private pos = 0;
  /** set when the scan stopped at a `---` or `...` line */
  private marker = false;
  /**
   * The column of the block collection around the quoted scalar or flow collection being read: its lines
   * after the first must be indented deeper (`yaml` refuses them otherwise, where js-yaml may not).
   */
  private indent = -1;
  /** how many flow collections are open */
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly nodes: Nodes,
  ) {}

  /** whitespace, a line break or the end of the text at `at` */
  private separates(at: number): boolean {
    const c = this.text.charCodeAt(at);
    return at < 0 || at >= this.text.length || c === SPACE || c === TAB || c === LF || c === CR;
  }

  private column(at: number): number {
    return at === 0 ? 0 : at - (this.text.lastIndexOf('\n', at - 1) + 1);
  }

  private isDocumentMarker(at: number): boolean {
    const c = this.text.charCodeAt(at);
    return (
      (c === DASH || c === DOT) &&
      this.column(at) === 0 &&
      this.text.charCodeAt(at + 1) === c &&
      this.text.charCodeAt(at + 2) === c &&
      this.separates(at + 3)
    );
  }

  document(): number {
    if (this.text.charCodeAt(0) === 0xfeff) unsupported('byte order mark');
    let start = NONE;
    if (this.nextContent() < 0 && this.marker && this.text.charCodeAt(this.pos) === DASH) {
      this.marker = false;
      start = this.pos += 3;
      this.skipInline();
      if (!this.atLineEnd()) unsupported('content after ---');
    }
    // an empty document is at 1:1, or after its --- as any empty node
    const empty = (): number => (start === NONE ? this.nodes.add(SCALAR, NONE) : this.empty(start));
    const root = this.nextContent() < 0 ? empty() : this.block(-1, false);
    if (this.nextContent() >= 0) unsupported('content after the root node');
    if (this.marker) {
      if (this.text.charCodeAt(this.pos) === DASH) unsupported('a second document');
      this.pos += 3;
      this.marker = false;
      if (this.nextContent() >= 0 || this.marker) unsupported('content after ...');
    }
    return root;
  }

  private skipInline(): void {
    for (
      let c = this.text.charCodeAt(this.pos);
      c === SPACE || c === TAB;
      c = this.text.charCodeAt(++this.pos)
    );
  }

  /** At a line break, a comment or the end (after skipInline). */
  private atLineEnd(): boolean {
    const c = this.text.charCodeAt(this.pos);
    if (this.pos >= this.text.length || c === LF || c === CR) return true;
    return c === HASH && this.separates(this.pos - 1);
  }

  /** Past the line break that ends the current line (or to the end of the text). */
  private skipLine(): void {
    const end = this.text.indexOf('\n', this.pos);
    this.pos = end < 0 ? this.text.length : end + 1;
  }

  /**
   * Skip whitespace, comments and line breaks to the next content, which must be the first on its line.
   * Returns its column (its indentation), or -1 at the end of the text or at a document marker.
   */
  private nextContent(): number {
    const { text } = this;
    for (;;) {
      this.skipInline();
      if (this.pos >= text.length) return -1;
      const c = this.text.charCodeAt(this.pos);
      if (c === HASH) {
        if (!this.separates(this.pos - 1)) unsupported('# after content');
        this.skipLine();
      } else if (c === LF) {
        this.pos++;
      } else if (c === CR) {
        if (this.text.charCodeAt(this.pos + 1) !== LF) unsupported('a CR without LF');
        this.pos += 2;
      } else {
        let lineStart = this.pos;
        while (lineStart > 0 && this.text.charCodeAt(lineStart - 1) === SPACE) lineStart--;
        if (lineStart > 0 && this.text.charCodeAt(lineStart - 1) !== LF) {
          unsupported(
            this.text.charCodeAt(lineStart - 1) === TAB ? 'a tab in indentation' : 'content after a node',
          );
        }
        const column = this.pos - lineStart;
        if (column === 0 && this.isDocumentMarker(this.pos)) {
          this.marker = true;
          return -1;
        }
        return column;
      }
    }
  }

  /**
   * A node with nothing in it, after an indicator that ends at `from` (`key:`, `-`, `---`). When comments lie
   * between it and the next content, `yaml` gives the node a range of its own: from the first comment on the
   * indicator's line, or else from the end of that line.
   */
  private empty(from: number): number {
    // only the gap is searched: an indexOf could run on far past it, once for every empty node of the file
    let comment = from;
    while (comment < this.pos && this.text.charCodeAt(comment) !== HASH) comment++;
    if (comment >= this.pos) return this.nodes.add(SCALAR, NONE);
    let start = from;
    for (let c = this.text.charCodeAt(start); c === SPACE || c === TAB; c = this.text.charCodeAt(++start));
    return this.nodes.add(SCALAR, start);
  }

  /**
   * An empty sequence entry. Comment lines just above its dash may belong to it (then `yaml` gives it a range
   * of its own) or to the entry before, depending on their indentation and that entry's kind: left to `yaml`.
   */
  private emptyEntry(from: number): number {
    const dash = from - 1;
    let lineEnd = this.text.lastIndexOf('\n', dash);
    while (lineEnd > 0) {
      const lineStart = this.text.lastIndexOf('\n', lineEnd - 1) + 1;
      const line = this.text.slice(lineStart, lineEnd).trim();
      if (line.startsWith('#')) unsupported('comments above an empty sequence entry');
      if (line !== '') break;
      lineEnd = lineStart - 1;
    }
    return this.empty(from);
  }

  /**
   * A node on a line below its `key:` or `-` (which ends at `from`). A plain scalar there after blank or
   * comment lines may be read by `yaml` as a key that goes on over lines: left to it.
   */
  private belowIndicator(from: number, column: number): number {
    const start = this.pos;
    const node = this.block(column, false);
    const c = this.text.charCodeAt(start);
    const plain =
      this.nodes.kind[node] === SCALAR && !QUOTE.has(c) && !BLOCK_SCALAR.has(c) && !OPENS_FLOW.has(c);
    const gap = this.text.slice(from, start);
    if (plain && (gap.includes('#') || gap.indexOf('\n') !== gap.lastIndexOf('\n')))
      unsupported('a plain scalar below its key after blank or comment lines');
    return node;
  }

  /** A dash that starts a block sequence entry. */
  private atEntry(): boolean {
    return this.text.charCodeAt(this.pos) === DASH && this.separates(this.pos + 1);
  }

  /**
   * A node in block context at the current content, inside a collection at column `parent`. `inline`: it
   * follows `key:` on the same line, where no block collection can start.
   */
  private block(parent: number, inline: boolean): number {
    const c = this.text.charCodeAt(this.pos);
    if (this.atEntry()) {
      if (inline) unsupported('a block sequence after a key');
      return this.sequence(this.column(this.pos));
    }
    if (UNSUPPORTED_START.has(c)) unsupported(`a node starting with ${String.fromCharCode(c)}`);
    if (BLOCK_SCALAR.has(c)) return this.blockScalar(parent);
    this.indent = parent;
    if (OPENS_FLOW.has(c)) {
      const node = this.flowCollection();
      this.skipInline();
      if (this.text.charCodeAt(this.pos) === COLON) unsupported('a collection as a key');
      return node;
    }
    // after `key:` only a scalar can follow on the line (a plain one with `: ` in it, or a quoted one followed
    // by `:`, is refused below): no need to look for a key first
    if (!inline && this.keyAhead()) return this.mapping(this.column(this.pos));
    const start = this.pos;
    if (QUOTE.has(c)) {
      this.skipQuoted();
      let after = this.pos;
      while (this.text.charCodeAt(after) === SPACE || this.text.charCodeAt(after) === TAB) after++;
      if (this.text.charCodeAt(after) === COLON && this.separates(after + 1))
        unsupported('a key where a value is');
    } else {
      this.plainBlock(parent);
    }
    return this.nodes.add(SCALAR, start);
  }

  /** Whether the line goes on from here with an implicit key: a scalar and `:` then space or line end. */
  private keyAhead(): boolean {
    const start = this.pos;
    try {
      return this.keyEnd() >= 0;
    } finally {
      this.pos = start;
    }
  }

  /**
   * Read a key in block context at the current position: leaves the position on its `:` and returns where the
   * key ends, or -1 when there is no key on this line.
   */
  private keyEnd(): number {
    const { text } = this;
    const keyStart = this.pos;
    if (QUOTE.has(this.text.charCodeAt(this.pos))) {
      const line = text.indexOf('\n', this.pos);
      this.skipQuoted();
      if (line >= 0 && this.pos > line) return -1;
      const end = this.pos;
      this.skipInline();
      return this.text.charCodeAt(this.pos) === COLON && this.separates(this.pos + 1) ? end : -1;
    }
    for (let i = this.pos; i < text.length; i++) {
      const c = this.text.charCodeAt(i);
      if (c === LF || c === CR) return -1;
      if (c === HASH && this.separates(i - 1)) return -1;
      if (c === COLON && this.separates(i + 1)) {
        this.pos = i;
        let end = i;
        while (end > keyStart && this.separates(end - 1)) end--;
        return end;
      }
    }
    return -1;
  }

  private mapping(column: number): number {
    const map = this.nodes.add(MAP, this.pos);
    const children = new Children(this.nodes, map);
    for (;;) {
      const keyStart = this.pos;
      const keyQuote = QUOTE.has(this.text.charCodeAt(keyStart)) ? this.text.charCodeAt(keyStart) : 0;
      const keyEnd = this.keyEnd();
      if (keyEnd < 0) unsupported('a mapping entry without a key');
      if (keyQuote === 0 && this.text.slice(keyStart, keyEnd) === '<<') unsupported('a merge key');
      this.pos++; // the colon
      const after = this.pos;
      this.skipInline();
      let value: number;
      if (this.atLineEnd()) {
        const indent = this.nextContent();
        if (indent > column) value = this.belowIndicator(after, column);
        else if (indent === column && this.atEntry()) value = this.sequence(column);
        else value = this.empty(after);
      } else {
        value = this.block(column, true);
      }
      this.nodes.keyStart[value] = keyStart;
      this.nodes.keyEnd[value] = keyEnd;
      this.nodes.keyQuote[value] = keyQuote;
      children.append(value);
      const indent = this.nextContent();
      if (indent < column) return map;
      if (indent > column || this.atEntry()) unsupported('a mapping entry out of place');
    }
  }

  private sequence(column: number): number {
    const seq = this.nodes.add(SEQ, this.pos);
    const children = new Children(this.nodes, seq);
    for (;;) {
      const after = ++this.pos; // past the dash
      this.skipInline();
      let item: number;
      if (this.atLineEnd()) {
        item = this.nextContent() > column ? this.belowIndicator(after, column) : this.emptyEntry(after);
      } else {
        item = this.block(column, false);
      }
      children.append(item);
      const indent = this.nextContent();
      if (indent < column || (indent === column && !this.atEntry())) return seq;
      if (indent > column) unsupported('a sequence entry out of place');
    }
  }

  /**
   * A line inside a quoted scalar or a flow collection, from its start: blank, indented deeper, or in a flow
   * collection a comment, or the closing bracket of the outermost collection at the block's own column.
   */
  private continuation(lineStart: number, flow: boolean): void {
    let i = lineStart;
    while (this.text.charCodeAt(i) === SPACE) i++;
    const c = this.text.charCodeAt(i);
    if (i - lineStart > this.indent || i >= this.text.length || c === LF || c === CR) return;
    if (flow && c === HASH) return;
    const closing = c === 0x5d || c === 0x7d;
    if (flow && closing && this.depth === 1 && i - lineStart >= this.indent) return;
    unsupported('a line not indented deeper than its collection');
  }

  /** Past a quoted scalar, from its opening quote. */
  private skipQuoted(): void {
    const { text } = this;
    const open = this.pos;
    const quote = text[open] as string;
    let close = text.indexOf(quote, open + 1);
    for (;;) {
      if (close < 0) unsupported('an unclosed quote');
      if (quote === "'" && text.charCodeAt(close + 1) === SINGLE_QUOTE)
        close = text.indexOf(quote, close + 2);
      else if (quote === '"' && escaped(text, close)) close = text.indexOf(quote, close + 1);
      else break;
    }
    for (let line = text.indexOf('\n', open); line >= 0 && line < close; line = text.indexOf('\n', line + 1))
      this.continuation(line + 1, false);
    this.pos = close + 1;
  }

  /** A plain scalar in block context: this line, and the lines after it indented deeper than `parent`. */
  private plainBlock(parent: number): void {
    this.plainLine();
    for (;;) {
      const end = this.pos;
      this.skipInline();
      if (this.text.charCodeAt(this.pos) === HASH) return this.restore(end);
      // a comment line ends the scalar: what follows it is less indented (nextContent skips it)
      if (this.nextContent() <= parent) return this.restore(end);
      if (this.tabOnBlankLine(end, parent)) unsupported('a tab on a blank line inside a plain scalar');
      this.plainLine();
    }
  }

  /** `yaml` reads a tab at the start of a blank line inside a plain scalar as text out of place. */
  private tabOnBlankLine(from: number, parent: number): boolean {
    for (let i = this.text.indexOf('\n', from); i >= 0 && i < this.pos; i = this.text.indexOf('\n', i + 1)) {
      let j = i + 1;
      while (this.text.charCodeAt(j) === SPACE) j++;
      if (this.text.charCodeAt(j) === TAB && j - i - 1 <= parent) return true;
    }
    return false;
  }

  private restore(at: number): void {
    this.pos = at;
  }

  /** To the end of the plain text on this line (before a comment or trailing whitespace). */
  private plainLine(): void {
    const { text } = this;
    let end = this.pos;
    for (let i = this.pos; i < text.length; i++) {
      const c = this.text.charCodeAt(i);
      if (c === LF || c === CR) break;
      if (c === HASH && this.separates(i - 1)) break;
      if (c === COLON && this.separates(i + 1)) unsupported('a key where a value is');
      if (c !== SPACE && c !== TAB) end = i + 1;
    }
    this.pos = end;
  }

  /** A block scalar from its `|` or `>`: its header line and every line indented deeper than `parent`. */
  private blockScalar(parent: number): number {
    const node = this.nodes.add(SCALAR, this.pos);
    const { text } = this;
    this.skipLine();
    while (this.pos < text.length) {
      let i = this.pos;
      while (this.text.charCodeAt(i) === SPACE) i++;
      const c = this.text.charCodeAt(i);
      const blank =
        i >= text.length || c === LF || c === CR || (c === TAB && /^[\t ]*\r?$/.test(this.rest(i)));
      if (c === TAB && i - this.pos <= parent) unsupported('a tab at the start of a line in a block scalar');
      if (!blank && (i - this.pos <= parent || (parent < 0 && this.isDocumentMarker(i)))) return node;
      this.skipLine();
    }
    return node;
  }

  private rest(at: number): string {
    const end = this.text.indexOf('\n', at);
    return this.text.slice(at, end < 0 ? this.text.length : end);
  }

  /** Whitespace, line breaks and comments inside a flow collection. */
  private skipFlowSpace(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (c === SPACE || c === TAB) this.pos++;
      else if (c === LF) this.continuation(++this.pos, true);
      else if (c === CR) {
        if (this.text.charCodeAt(this.pos + 1) !== LF) unsupported('a CR without LF');
        this.continuation((this.pos += 2), true);
      } else if (c === HASH && this.separates(this.pos - 1)) {
        this.skipLine();
        this.continuation(this.pos, true);
      } else return;
    }
  }

  /** `[…]` or `{…}` from its opening bracket; a `key: value` entry of a `[…]` is a one-pair mapping. */
  private flowCollection(): number {
    const isSeq = this.text.charCodeAt(this.pos) === 0x5b;
    const close = isSeq ? 0x5d : 0x7d;
    const node = this.nodes.add(isSeq ? SEQ : MAP, this.pos);
    const children = new Children(this.nodes, node);
    this.pos++;
    this.depth++;
    for (;;) {
      this.skipFlowSpace();
      if (this.text.charCodeAt(this.pos) === close) {
        this.pos++;
        this.depth--;
        return node;
      }
      if (this.pos >= this.text.length) unsupported('an unclosed collection');
      const start = this.pos;
      const c = this.text.charCodeAt(start);
      let first: number = NONE;
      let quote = 0;
      if (OPENS_FLOW.has(c)) first = this.flowCollection();
      else if (QUOTE.has(c)) {
        quote = c;
        this.skipQuoted();
      } else if (UNSUPPORTED_START.has(c) || BLOCK_SCALAR.has(c) || c === COLON || FLOW_INDICATOR.has(c)) {
        unsupported(`${String.fromCharCode(c)} in a flow collection`);
      } else this.plainFlow();
      const end = this.pos;
      this.skipFlowSpace();
      const pair =
        this.text.charCodeAt(this.pos) === COLON &&
        (quote !== 0 ||
          first !== NONE ||
          this.separates(this.pos + 1) ||
          FLOW_INDICATOR.has(this.text.charCodeAt(this.pos + 1)));
      if (pair) {
        if (first !== NONE) unsupported('a collection as a key');
        const after = ++this.pos; // past the colon
        this.skipFlowSpace();
        const v = this.text.charCodeAt(this.pos);
        const value = v === COMMA || v === close ? this.empty(after) : this.flowValue();
        this.nodes.keyStart[value] = start;
        this.nodes.keyEnd[value] = end;
        this.nodes.keyQuote[value] = quote;
        if (isSeq) {
          const single = this.nodes.add(MAP, start);
          new Children(this.nodes, single).append(value);
          children.append(single);
        } else children.append(value);
      } else if (isSeq) {
        children.append(first !== NONE ? first : this.nodes.add(SCALAR, start));
      } else {
        if (first !== NONE) unsupported('a collection as a key');
        const value = this.nodes.add(SCALAR, NONE); // a key alone: its value is null, no node
        this.nodes.keyStart[value] = start;
        this.nodes.keyEnd[value] = end;
        this.nodes.keyQuote[value] = quote;
        children.append(value);
      }
      this.skipFlowSpace();
      const next = this.text.charCodeAt(this.pos);
      if (next === COMMA) this.pos++;
      else if (next !== close) unsupported('a flow entry out of place');
    }
  }

  /** A value inside a flow collection: a nested collection or a scalar. */
  private flowValue(): number {
    const start = this.pos;
    const c = this.text.charCodeAt(start);
    if (OPENS_FLOW.has(c)) return this.flowCollection();
    if (QUOTE.has(c)) this.skipQuoted();
    else if (UNSUPPORTED_START.has(c) || BLOCK_SCALAR.has(c) || FLOW_INDICATOR.has(c) || c === COLON)
      unsupported(`${String.fromCharCode(c)} in a flow collection`);
    else this.plainFlow();
    return this.nodes.add(SCALAR, start);
  }

  /** A plain scalar in flow context, which may go on over lines; leaves the position after its last character. */
  private plainFlow(): void {
    const { text } = this;
    let end = this.pos;
    for (let i = this.pos; i < text.length; i++) {
      const c = this.text.charCodeAt(i);
      if (FLOW_INDICATOR.has(c)) break;
      if (c === COLON && (this.separates(i + 1) || FLOW_INDICATOR.has(this.text.charCodeAt(i + 1)))) break;
      if (c === HASH && this.separates(i - 1)) break;
      if (c === LF) this.continuation(i + 1, true);
      else if (c !== SPACE && c !== TAB && c !== CR) end = i + 1;
    }
    this.pos = end;
  }
}

/** Positions of the nodes of one YAML text, found by one pass over it. */
export class PositionIndex {
  private readonly mapChildren = new Map<number, Map<string, number>>();
  private readonly seqChildren = new Map<number, Int32Array>();

  private constructor(
    readonly lines: LineTable,
    private readonly text: string,
    private readonly nodes: Nodes,
    private readonly root: number,
  ) {}

  /** Scan `text`; throws UnsupportedYaml when it uses what the index does not cover. */
  static build(text: string): PositionIndex {
    const lines = new LineTable(text);
    // about one node per line is typical: start there rather than growing from nothing
    const nodes = new Nodes(lines.count + (lines.count >> 2));
    const root = new Scanner(text, nodes).document();
    return new PositionIndex(lines, text, nodes, root);
  }

  /**
   * Where the node at `pointer` starts, as the `yaml` Document says (see SourceDoc.positionOf), checked along
   * the way against `data`, the text's parsed value: a node whose shape differs (a mapping where the data has
   * a list, another number of entries, a key the data does not have) throws UnsupportedYaml.
   */
  positionOf(pointer: string, which: 'key' | 'value', data: unknown): Position {
    const { nodes } = this;
    let node = this.root;
    let key = NONE;
    let value = data;
    let complete = true;
    for (const segment of parsePointer(pointer)) {
      let child = NONE;
      const kind = nodes.kind[node];
      if (kind === MAP) {
        if (!isPlainObject(value)) unsupported('a mapping where the data has none');
        const entries = this.entries(node, value);
        child = entries.get(segment) ?? NONE;
        if (child !== NONE) {
          key = child;
          value = value[segment];
        }
      } else if (kind === SEQ) {
        if (!Array.isArray(value)) unsupported('a sequence where the data has none');
        const items = this.items(node, value);
        const index = INDEX_SEGMENT.test(segment) ? Number(segment) : items.length;
        if (index < items.length) {
          child = items[index] ?? NONE;
          key = NONE;
          value = value[index] as unknown;
        }
      } else if (typeof value === 'object' && value !== null) {
        unsupported('a scalar where the data has a collection');
      }
      if (child === NONE) {
        complete = false;
        break;
      }
      node = child;
    }
    const start = nodes.start[node] ?? NONE;
    const valueStart = start === NONE ? undefined : start;
    const keyStart = key === NONE ? undefined : nodes.keyStart[key];
    const offset = which === 'key' || !complete ? (keyStart ?? valueStart) : (valueStart ?? keyStart);
    return this.lines.position(offset ?? 0);
  }

  private entries(node: number, data: Record<string, unknown>): Map<string, number> {
    let entries = this.mapChildren.get(node);
    if (!entries) {
      entries = new Map();
      for (
        let child = this.nodes.first[node] ?? NONE;
        child !== NONE;
        child = this.nodes.next[child] ?? NONE
      ) {
        const key = this.keyText(child);
        if (entries.has(key) || !Object.hasOwn(data, key)) unsupported('a key the data does not have');
        entries.set(key, child);
      }
      if (entries.size !== Object.keys(data).length) unsupported('a mapping of another size than the data');
      this.mapChildren.set(node, entries);
    }
    return entries;
  }

  private items(node: number, data: readonly unknown[]): Int32Array {
    let items = this.seqChildren.get(node);
    if (!items) {
      let count = 0;
      for (let child = this.nodes.first[node] ?? NONE; child !== NONE; child = this.nodes.next[child] ?? NONE)
        count++;
      if (count !== data.length) unsupported('a sequence of another length than the data');
      items = new Int32Array(count);
      let i = 0;
      for (let child = this.nodes.first[node] ?? NONE; child !== NONE; child = this.nodes.next[child] ?? NONE)
        items[i++] = child;
      this.seqChildren.set(node, items);
    }
    return items;
  }

  /** A key as the data has it: a scalar read with the core schema, as a string. */
  private keyText(node: number): string {
    const raw = this.text.slice(this.nodes.keyStart[node], this.nodes.keyEnd[node]);
    if (this.nodes.keyQuote[node] === 0 && !NOT_PLAIN_TEXT.test(raw)) return raw;
    // a scalar: a string, number, boolean or null
    const key = jsYaml.load(raw, { schema: jsYaml.CORE_SCHEMA }) as
      string | number | boolean | null | undefined;
    return String(key ?? null);
  }
}

/** Whether the character at `at` follows an odd number of backslashes. */
function escaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
