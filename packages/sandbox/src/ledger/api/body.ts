/**
 * Decoding JSON request bodies as the JSON Ledger API does (canton-json-api.md §4): a body that is not JSON, lacks
 * a required field, has a field of the wrong type or one the message does not have is answered 400 text/plain
 * `Invalid value for: body (…)`, before any JsCantonError.
 */
import { type Reply, text } from '../../http/reply.js';

export class BodyError extends Error {
  reply(): Reply {
    return text(400, `Invalid value for: body (${this.message})`);
  }
}

type Json = unknown;

export class Reader {
  private constructor(
    readonly value: Json,
    readonly path: string,
  ) {}

  static parse(raw: Buffer): Reader {
    const source = raw.toString('utf8');
    if (source.trim() === '') throw new BodyError('expected json value got end of input');
    try {
      return new Reader(JSON.parse(source) as Json, '');
    } catch (error) {
      throw new BodyError(`expected json value: ${(error as Error).message}`);
    }
  }

  static of(value: Json, path = ''): Reader {
    return new Reader(value, path);
  }

  private fail(problem: string, at = this.path): never {
    throw new BodyError(`DecodingFailure at ${at === '' ? '.' : at}: ${problem}`);
  }

  /** the value as an object whose keys are all among `allowed` */
  object(allowed: readonly string[]): Record<string, Json> {
    if (typeof this.value !== 'object' || this.value === null || Array.isArray(this.value))
      return this.fail('expected an object');
    const record = this.value as Record<string, Json>;
    const unknown = Object.keys(record).filter((k) => !allowed.includes(k));
    if (unknown.length > 0) this.fail(`Unexpected field(s): ${unknown.join(', ')}`);
    return record;
  }

  /** the keys of an object (a map such as filtersByParty) */
  keys(): string[] {
    if (typeof this.value !== 'object' || this.value === null || Array.isArray(this.value))
      return this.fail('expected an object');
    return Object.keys(this.value);
  }

  at(key: string): Reader {
    const value = (this.value as Record<string, Json> | null)?.[key];
    return new Reader(value, `${this.path}.${key}`);
  }

  present(): boolean {
    return this.value !== undefined && this.value !== null;
  }

  string(): string {
    if (this.value === undefined || this.value === null) this.fail('Missing required field');
    return typeof this.value === 'string' ? this.value : this.fail('expected a string');
  }

  optString(): string | undefined {
    return this.present() ? this.string() : undefined;
  }

  integer(): number {
    if (this.value === undefined || this.value === null) this.fail('Missing required field');
    const n = typeof this.value === 'string' && /^-?\d+$/.test(this.value) ? Number(this.value) : this.value;
    return typeof n === 'number' && Number.isSafeInteger(n) ? n : this.fail('expected an integer');
  }

  optInteger(): number | undefined {
    return this.present() ? this.integer() : undefined;
  }

  boolean(): boolean {
    if (this.value === undefined || this.value === null) this.fail('Missing required field');
    return typeof this.value === 'boolean' ? this.value : this.fail('expected a boolean');
  }

  optBoolean(): boolean | undefined {
    return this.present() ? this.boolean() : undefined;
  }

  array(): Reader[] {
    if (this.value === undefined || this.value === null) this.fail('Missing required field');
    if (!Array.isArray(this.value)) return this.fail('expected an array');
    return this.value.map((v, i) => new Reader(v, `${this.path}[${i}]`));
  }

  optArray(): Reader[] {
    return this.present() ? this.array() : [];
  }

  strings(): string[] {
    return this.array().map((r) => r.string());
  }

  optStrings(): string[] {
    return this.present() ? this.strings() : [];
  }

  /** a one-key wrapper `{"Variant": …}` whose key is among `variants` */
  oneOf(variants: readonly string[]): { tag: string; body: Reader } {
    const record = this.object(variants);
    const keys = Object.keys(record);
    if (keys.length !== 1) this.fail(`expected exactly one of ${variants.join(', ')}`);
    const tag = keys[0] as string;
    return { tag, body: this.at(tag) };
  }

  /** the raw value, for Daml values and maps checked elsewhere */
  raw(): Json {
    return this.value;
  }

  requireRaw(): Json {
    if (this.value === undefined) this.fail('Missing required field');
    return this.value;
  }
}

/** a whole-number query parameter, absent or a 400 text/plain as Canton's when it does not decode */
export function intQuery(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (!/^\d+$/.test(value)) throw new QueryError(name);
  return Number(value);
}

/** `limit` and `stream_idle_timeout_ms` of a list endpoint */
export function listParams(query: URLSearchParams): {
  limit: number | undefined;
  idleMs: number | undefined;
} {
  return { limit: intQuery(query, 'limit'), idleMs: intQuery(query, 'stream_idle_timeout_ms') };
}

export class QueryError extends Error {
  constructor(readonly parameter: string) {
    super(parameter);
  }

  reply(): Reply {
    return text(400, `Invalid value for: query parameter ${this.parameter}`);
  }
}
