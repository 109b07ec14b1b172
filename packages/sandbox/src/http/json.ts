/**
 * A JSON parser that keeps the position of every value, so that the sandbox can answer a bad request body with
 * the same text the real server (actix-web + serde_json) sends: `… at line L column C`, where C is the column of
 * the last character read when the problem was found (serde_json's convention; 0 for an empty body).
 */

export interface Position {
  line: number;
  column: number;
}

export type JsonNode =
  | { kind: 'null'; start: Position; end: Position }
  | { kind: 'bool'; value: boolean; start: Position; end: Position }
  | { kind: 'number'; text: string; value: number; start: Position; end: Position }
  | { kind: 'string'; value: string; start: Position; end: Position }
  | { kind: 'array'; items: JsonNode[]; start: Position; end: Position }
  | {
      kind: 'object';
      entries: Array<{ key: string; keyEnd: Position; value: JsonNode }>;
      start: Position;
      end: Position;
    };

export class JsonSyntaxError extends Error {
  constructor(
    readonly what: string,
    readonly position: Position,
  ) {
    super(`${what} at line ${position.line} column ${position.column}`);
  }
}

export function parseJson(text: string): JsonNode {
  return new Parser(text).document();
}

/** Plain JavaScript value of a node. */
export function toValue(node: JsonNode): unknown {
  switch (node.kind) {
    case 'null':
      return null;
    case 'bool':
    case 'string':
    case 'number':
      return node.value;
    case 'array':
      return node.items.map(toValue);
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const entry of node.entries) out[entry.key] = toValue(entry.value);
      return out;
    }
  }
}

class Parser {
  private index = 0;
  private line = 1;
  /** column of the last character consumed on the current line */
  private column = 0;

  constructor(private readonly text: string) {}

  document(): JsonNode {
    this.skipWhitespace();
    const value = this.value();
    this.skipWhitespace();
    if (this.index < this.text.length) {
      this.advance();
      throw this.error('trailing characters');
    }
    return value;
  }

  private position(): Position {
    return { line: this.line, column: this.column };
  }

  private error(what: string): JsonSyntaxError {
    return new JsonSyntaxError(what, this.position());
  }

  private peek(): string | undefined {
    return this.text[this.index];
  }

  private advance(): string {
    const char = this.text[this.index++] ?? '';
    if (char === '\n') {
      this.line++;
      this.column = 0;
    } else {
      this.column++;
    }
    return char;
  }

  private skipWhitespace(): void {
    for (let c = this.peek(); c === ' ' || c === '\n' || c === '\t' || c === '\r'; c = this.peek())
      this.advance();
  }

  private value(): JsonNode {
    const c = this.peek();
    if (c === undefined) throw this.error('EOF while parsing a value');
    switch (c) {
      case '{':
        return this.object();
      case '[':
        return this.array();
      case '"': {
        const start = this.nextPosition();
        const value = this.string();
        return { kind: 'string', value, start, end: this.position() };
      }
      case 't':
        return this.literal('true', { kind: 'bool', value: true });
      case 'f':
        return this.literal('false', { kind: 'bool', value: false });
      case 'n':
        return this.literal('null', { kind: 'null' });
      default:
        if (c === '-' || (c >= '0' && c <= '9')) return this.number();
        this.advance();
        throw this.error('expected value');
    }
  }

  private nextPosition(): Position {
    return { line: this.line, column: this.column + 1 };
  }

  private literal<T extends object>(word: string, node: T): T & { start: Position; end: Position } {
    const start = this.nextPosition();
    for (const expected of word) {
      if (this.peek() === undefined) throw this.error('EOF while parsing a value');
      if (this.advance() !== expected) throw this.error('expected ident');
    }
    return { ...node, start, end: this.position() };
  }

  private number(): JsonNode {
    const start = this.nextPosition();
    const from = this.index;
    if (this.peek() === '-') this.advance();
    const digits = (): number => {
      let n = 0;
      for (let c = this.peek(); c !== undefined && c >= '0' && c <= '9'; c = this.peek(), n++) this.advance();
      return n;
    };
    if (this.peek() === '0') {
      this.advance();
      const next = this.peek();
      if (next !== undefined && next >= '0' && next <= '9') {
        this.advance();
        throw this.error('invalid number');
      }
    } else if (digits() === 0) {
      if (this.peek() !== undefined) this.advance();
      throw this.error('invalid number');
    }
    if (this.peek() === '.') {
      this.advance();
      if (digits() === 0) {
        if (this.peek() !== undefined) this.advance();
        throw this.error(this.peek() === undefined ? 'EOF while parsing a value' : 'invalid number');
      }
    }
    if (this.peek() === 'e' || this.peek() === 'E') {
      this.advance();
      if (this.peek() === '+' || this.peek() === '-') this.advance();
      if (digits() === 0) {
        if (this.peek() !== undefined) this.advance();
        throw this.error('invalid number');
      }
    }
    const text = this.text.slice(from, this.index);
    return { kind: 'number', text, value: Number(text), start, end: this.position() };
  }

  private string(): string {
    this.advance(); // opening quote
    let out = '';
    for (;;) {
      const c = this.peek();
      if (c === undefined) throw this.error('EOF while parsing a string');
      this.advance();
      if (c === '"') return out;
      if (c === '\\') {
        const e = this.peek();
        if (e === undefined) throw this.error('EOF while parsing a string');
        this.advance();
        const simple: Record<string, string> = {
          '"': '"',
          '\\': '\\',
          '/': '/',
          b: '\b',
          f: '\f',
          n: '\n',
          r: '\r',
          t: '\t',
        };
        if (e in simple) {
          out += simple[e];
        } else if (e === 'u') {
          let hex = '';
          for (let i = 0; i < 4; i++) {
            const h = this.peek();
            if (h === undefined) throw this.error('EOF while parsing a string');
            this.advance();
            if (!/[0-9a-fA-F]/.test(h)) throw this.error('invalid escape');
            hex += h;
          }
          out += String.fromCharCode(parseInt(hex, 16));
        } else {
          throw this.error('invalid escape');
        }
      } else if (c < ' ') {
        throw this.error('control character (\\u0000-\\u001F) found while parsing a string');
      } else {
        out += c;
      }
    }
  }

  private array(): JsonNode {
    const start = this.nextPosition();
    this.advance();
    const items: JsonNode[] = [];
    this.skipWhitespace();
    if (this.peek() === ']') {
      this.advance();
      return { kind: 'array', items, start, end: this.position() };
    }
    for (;;) {
      this.skipWhitespace();
      if (this.peek() === undefined) throw this.error('EOF while parsing a list');
      items.push(this.value());
      this.skipWhitespace();
      const c = this.peek();
      if (c === undefined) throw this.error('EOF while parsing a list');
      this.advance();
      if (c === ']') return { kind: 'array', items, start, end: this.position() };
      if (c !== ',') throw this.error('expected `,` or `]`');
      this.skipWhitespace();
      if (this.peek() === ']') {
        this.advance();
        throw this.error('trailing comma');
      }
    }
  }

  private object(): JsonNode {
    const start = this.nextPosition();
    this.advance();
    const entries: Array<{ key: string; keyEnd: Position; value: JsonNode }> = [];
    this.skipWhitespace();
    if (this.peek() === '}') {
      this.advance();
      return { kind: 'object', entries, start, end: this.position() };
    }
    for (;;) {
      this.skipWhitespace();
      const c = this.peek();
      if (c === undefined) throw this.error('EOF while parsing an object');
      if (c !== '"') {
        this.advance();
        throw this.error('key must be a string');
      }
      const key = this.string();
      const keyEnd = this.position();
      this.skipWhitespace();
      if (this.peek() === undefined) throw this.error('EOF while parsing an object');
      if (this.advance() !== ':') throw this.error('expected `:`');
      this.skipWhitespace();
      const value = this.value();
      entries.push({ key, keyEnd, value });
      this.skipWhitespace();
      const next = this.peek();
      if (next === undefined) throw this.error('EOF while parsing an object');
      this.advance();
      if (next === '}') return { kind: 'object', entries, start, end: this.position() };
      if (next !== ',') throw this.error('expected `,` or `}`');
      this.skipWhitespace();
      if (this.peek() === '}') {
        this.advance();
        throw this.error('trailing comma');
      }
    }
  }
}
