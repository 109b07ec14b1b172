/**
 * Daml-LF values in their JSON encoding (canton-json-api.md §2), for the types the sandbox's templates use:
 * records are objects keyed by field, variants `{tag, value}`, Numeric and Int64 strings, Time ISO-8601 UTC,
 * Optional `null` or the value, TextMap an object, GenMap a list of pairs. `decode` checks a value against its
 * type and returns it in the form the ledger stores and answers with (Numeric padded to 10 decimals, Time with
 * microseconds), or throws LfError naming the path — the participant's "Command preprocessing failed".
 */
import { Decimal } from 'decimal.js';

export type LfType =
  | { k: 'party' }
  | { k: 'text' }
  | { k: 'int' }
  | { k: 'numeric' }
  | { k: 'bool' }
  | { k: 'time' }
  | { k: 'date' }
  | { k: 'reltime' }
  | { k: 'cid' }
  | { k: 'unit' }
  | { k: 'list'; of: LfType }
  | { k: 'optional'; of: LfType }
  | { k: 'textmap'; of: LfType }
  | { k: 'genmap'; key: LfType; value: LfType }
  | { k: 'record'; name: string; fields: Record<string, LfType> }
  | { k: 'variant'; name: string; cases: () => Record<string, LfType> }
  | { k: 'enum'; name: string; values: string[] }
  /** a value the sandbox keeps as given (opaque payloads) */
  | { k: 'any' };

export const T = {
  party: { k: 'party' } as const,
  text: { k: 'text' } as const,
  int: { k: 'int' } as const,
  numeric: { k: 'numeric' } as const,
  bool: { k: 'bool' } as const,
  time: { k: 'time' } as const,
  date: { k: 'date' } as const,
  reltime: { k: 'reltime' } as const,
  cid: { k: 'cid' } as const,
  unit: { k: 'unit' } as const,
  any: { k: 'any' } as const,
  list: (of: LfType): LfType => ({ k: 'list', of }),
  optional: (of: LfType): LfType => ({ k: 'optional', of }),
  textmap: (of: LfType): LfType => ({ k: 'textmap', of }),
  genmap: (key: LfType, value: LfType): LfType => ({ k: 'genmap', key, value }),
  record: (name: string, fields: Record<string, LfType>): LfType => ({ k: 'record', name, fields }),
  variant: (name: string, cases: () => Record<string, LfType>): LfType => ({ k: 'variant', name, cases }),
  enum: (name: string, values: string[]): LfType => ({ k: 'enum', name, values }),
};

export class LfError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${problem}${path === '' ? '' : ` at ${path}`}`);
  }
}

/** Daml Decimal = Numeric 10 */
export const SCALE = 10;
const NUMERIC = /^-?\d+(\.\d+)?$/;
const NUMERIC_MAX_INTEGER_DIGITS = 28;

/** a Numeric 10 as the ledger writes it: fixed point, 10 decimals */
export function formatNumeric(value: Decimal.Value): string {
  return new Decimal(value).toFixed(SCALE);
}

/** parses a Numeric 10 (a string, or a JSON number as the JSON API also accepts); undefined when invalid */
export function parseNumeric(value: unknown): Decimal | undefined {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string' || !NUMERIC.test(text)) return undefined;
  const [integer = '', fraction = ''] = text.replace('-', '').split('.');
  if (fraction.length > SCALE || integer.replace(/^0+/, '').length > NUMERIC_MAX_INTEGER_DIGITS)
    return undefined;
  return new Decimal(text);
}

const TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/** microseconds since the epoch of an RFC 3339 time (nanoseconds truncated); undefined when invalid */
export function parseTime(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const m = TIME.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction = '', zone = 'Z'] = m;
  const base = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(base)) return undefined;
  const offsetMinutes =
    zone === 'Z'
      ? 0
      : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4)));
  const micros = Number((fraction + '000000').slice(0, 6));
  return (base - offsetMinutes * 60_000) * 1000 + micros;
}

/** the ledger's form of a time: UTC with microseconds */
export function formatTime(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 19)}.${String(((micros % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, '0')}Z`;
}

export function nowMicros(): number {
  return Date.now() * 1000;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const CONTRACT_ID = /^00[0-9a-f]{64,}$/;
const PARTY = /^[A-Za-z0-9:_ -]{1,255}::[0-9a-f]{68}$/;

export function isPartyId(value: unknown): value is string {
  return typeof value === 'string' && PARTY.test(value);
}

export function isContractId(value: unknown): value is string {
  return typeof value === 'string' && CONTRACT_ID.test(value);
}

/** Checks `value` against `type`; returns the stored form. */
export function decode(type: LfType, value: unknown, path = ''): unknown {
  const fail = (problem: string): never => {
    throw new LfError(path, problem);
  };
  switch (type.k) {
    case 'party':
      return isPartyId(value) ? value : fail(`expected a party id, got ${show(value)}`);
    case 'text':
      return typeof value === 'string' ? value : fail(`expected a text, got ${show(value)}`);
    case 'int': {
      const text = typeof value === 'number' && Number.isInteger(value) ? String(value) : value;
      if (typeof text !== 'string' || !/^-?\d{1,19}$/.test(text))
        return fail(`expected an Int64, got ${show(value)}`);
      return text.replace(/^(-?)0+(?=\d)/, '$1');
    }
    case 'numeric': {
      const n = parseNumeric(value);
      return n === undefined
        ? fail(
            `expected a Numeric with at most ${SCALE} decimal places (a string such as "0.02"), got ${show(value)}`,
          )
        : formatNumeric(n);
    }
    case 'bool':
      return typeof value === 'boolean' ? value : fail(`expected a Bool, got ${show(value)}`);
    case 'time': {
      const micros = parseTime(value);
      return micros === undefined
        ? fail(`expected an RFC 3339 timestamp, got ${show(value)}`)
        : formatTime(micros);
    }
    case 'date':
      return typeof value === 'string' && DATE.test(value)
        ? value
        : fail(`expected a date YYYY-MM-DD, got ${show(value)}`);
    case 'reltime': {
      const record =
        asObject(value) ?? fail(`expected a RelTime {"microseconds": "<n>"}, got ${show(value)}`);
      return { microseconds: decode(T.int, record.microseconds, `${path}.microseconds`) };
    }
    case 'cid':
      return isContractId(value) ? value : fail(`expected a contract id, got ${show(value)}`);
    case 'unit':
      return asObject(value) !== undefined ? {} : fail(`expected a Unit {}, got ${show(value)}`);
    case 'list':
      if (!Array.isArray(value)) return fail(`expected a list, got ${show(value)}`);
      return value.map((item, i) => decode(type.of, item, `${path}[${i}]`));
    case 'optional':
      return value === null || value === undefined ? null : decode(type.of, value, path);
    case 'textmap': {
      const record = asObject(value) ?? fail(`expected a TextMap (an object), got ${show(value)}`);
      return Object.fromEntries(
        Object.entries(record).map(([k, v]) => [k, decode(type.of, v, `${path}.${k}`)]),
      );
    }
    case 'genmap': {
      if (!Array.isArray(value))
        return fail(`expected a Map (a list of [key, value] pairs), got ${show(value)}`);
      return value.map((pair, i) => {
        if (!Array.isArray(pair) || pair.length !== 2) return fail(`expected a [key, value] pair at [${i}]`);
        return [
          decode(type.key, pair[0], `${path}[${i}][0]`),
          decode(type.value, pair[1], `${path}[${i}][1]`),
        ];
      });
    }
    case 'record': {
      const record = asObject(value) ?? fail(`expected a record ${type.name}, got ${show(value)}`);
      const unexpected = Object.keys(record).filter((key) => !(key in type.fields));
      if (unexpected.length > 0) fail(`Unexpected fields: ${unexpected.join(', ')} (record ${type.name})`);
      const out: Record<string, unknown> = {};
      for (const [field, fieldType] of Object.entries(type.fields)) {
        const given = record[field];
        if (given === undefined && fieldType.k !== 'optional' && fieldType.k !== 'any') {
          fail(`Missing non-optional field: ${field} (record ${type.name})`);
        }
        out[field] = decode(fieldType, given, path === '' ? field : `${path}.${field}`);
      }
      return out;
    }
    case 'variant': {
      const record =
        asObject(value) ?? fail(`expected a variant ${type.name} {"tag", "value"}, got ${show(value)}`);
      const cases = type.cases();
      const tag = record.tag;
      if (typeof tag !== 'string' || !(tag in cases)) {
        return fail(
          `unknown constructor ${show(tag)} of variant ${type.name}; one of ${Object.keys(cases).join(', ')}`,
        );
      }
      const caseType = cases[tag] as LfType;
      return {
        tag,
        value:
          caseType.k === 'unit' && record.value === undefined
            ? {}
            : decode(caseType, record.value, `${path}.value`),
      };
    }
    case 'enum':
      return typeof value === 'string' && type.values.includes(value)
        ? value
        : fail(`expected one of ${type.values.join(', ')} (enum ${type.name}), got ${show(value)}`);
    case 'any':
      return value === undefined ? null : value;
  }
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'nothing' : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
