/**
 * Request-body and query decoding with the real server's rules and texts (Rust serde + serde_json, as wrapped
 * by actix-web): a missing field, an unknown field on a `deny_unknown_fields` type, a wrong type or a bad
 * Canton id is a 400 with a text/plain body such as
 * `Json deserialize error: missing field `dar_files` at line 1 column 2`.
 * Shapes are declared next to the routes that use them.
 */
import { type JsonNode, type Position, JsonSyntaxError, parseJson, toValue } from './json.js';

export type Shape =
  | { type: 'string' }
  | { type: 'canton-id' }
  | { type: 'int'; rust: 'i32' | 'i64' | 'u16' | 'u32' }
  | { type: 'bool' }
  | { type: 'vec'; of: Shape }
  | { type: 'option'; of: Shape }
  | { type: 'struct'; name: string; fields: Record<string, Shape>; denyUnknown?: boolean }
  /**
   * `#[serde(tag = "…", rename_all = "snake_case")]` enum: an object whose `tag` field names the variant; a
   * variant's own fields (null: a unit variant) follow in the same object. serde buffers the whole object before
   * it looks at the tag, so every error inside is reported where the object ends.
   */
  | { type: 'tagged'; name: string; tag: string; variants: Record<string, Record<string, Shape> | null> }
  /** a fieldless enum serialized as its variant's name */
  | { type: 'unit-enum'; name: string; values: readonly string[] }
  /** a shape that refers to itself (`Box<FieldDefinition>`) */
  | { type: 'lazy'; of: () => Shape }
  /** serde_json::Value: anything */
  | { type: 'any' };

export const S = {
  string: { type: 'string' } as const,
  cantonId: { type: 'canton-id' } as const,
  i32: { type: 'int', rust: 'i32' } as const,
  i64: { type: 'int', rust: 'i64' } as const,
  u16: { type: 'int', rust: 'u16' } as const,
  u32: { type: 'int', rust: 'u32' } as const,
  bool: { type: 'bool' } as const,
  any: { type: 'any' } as const,
  vec: (of: Shape): Shape => ({ type: 'vec', of }),
  option: (of: Shape): Shape => ({ type: 'option', of }),
  struct: (name: string, fields: Record<string, Shape>, denyUnknown = false): Shape => ({
    type: 'struct',
    name,
    fields,
    denyUnknown,
  }),
  tagged: (name: string, variants: Record<string, Record<string, Shape> | null>, tag = 'type'): Shape => ({
    type: 'tagged',
    name,
    tag,
    variants,
  }),
  unitEnum: (name: string, values: readonly string[]): Shape => ({ type: 'unit-enum', name, values }),
  lazy: (of: () => Shape): Shape => ({ type: 'lazy', of }),
};

export class DecodeError extends Error {}

const INT_RANGE: Record<string, [number, number]> = {
  i32: [-(2 ** 31), 2 ** 31 - 1],
  i64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  u16: [0, 65535],
  u32: [0, 2 ** 32 - 1],
};

/** Parses and decodes a JSON body; throws DecodeError with the actix text. */
export function decodeJsonBody<T>(text: string, shape: Shape): T {
  let node: JsonNode;
  try {
    node = parseJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new DecodeError(`Json deserialize error: ${error.message}`);
    throw error;
  }
  try {
    return decodeNode(node, shape) as T;
  } catch (error) {
    if (error instanceof DataError) {
      throw new DecodeError(
        `Json deserialize error: ${error.message} at line ${error.position.line} column ${error.position.column}`,
      );
    }
    throw error;
  }
}

class DataError extends Error {
  constructor(
    message: string,
    readonly position: Position,
  ) {
    super(message);
  }
}

function expectedOf(shape: Shape): string {
  switch (shape.type) {
    case 'string':
    case 'canton-id':
      return 'a string';
    case 'int':
      return shape.rust;
    case 'bool':
      return 'a boolean';
    case 'vec':
      return 'a sequence';
    case 'option':
      return expectedOf(shape.of);
    case 'struct':
      return `struct ${shape.name}`;
    case 'tagged':
      return `internally tagged enum ${shape.name}`;
    case 'unit-enum':
      return `enum ${shape.name}`;
    case 'lazy':
      return expectedOf(shape.of());
    case 'any':
      return 'any valid JSON value';
  }
}

function unexpected(node: JsonNode): string {
  switch (node.kind) {
    case 'null':
      return 'null';
    case 'bool':
      return `boolean \`${node.value}\``;
    case 'number':
      return Number.isInteger(node.value) && !/[.eE]/.test(node.text)
        ? `integer \`${node.text}\``
        : `floating point \`${Number.isInteger(node.value) ? node.value.toFixed(1) : node.value}\``;
    case 'string':
      return `string ${JSON.stringify(node.value)}`;
    case 'array':
      return 'sequence';
    case 'object':
      return 'map';
  }
}

/** serde_json reports a type error on a map or sequence where it starts, on a scalar where it ends. */
function where(node: JsonNode): Position {
  return node.kind === 'object' || node.kind === 'array' ? node.start : node.end;
}

function decodeNode(node: JsonNode, shape: Shape): unknown {
  const typeError = (): never => {
    throw new DataError(`invalid type: ${unexpected(node)}, expected ${expectedOf(shape)}`, where(node));
  };
  switch (shape.type) {
    case 'any':
      return toValue(node);
    case 'option':
      return node.kind === 'null' ? undefined : decodeNode(node, shape.of);
    case 'string':
      return node.kind === 'string' ? node.value : typeError();
    case 'canton-id': {
      if (node.kind !== 'string') return typeError();
      const problem = cantonIdProblem(node.value);
      if (problem !== undefined) throw new DataError(problem, node.end);
      return node.value;
    }
    case 'bool':
      return node.kind === 'bool' ? node.value : typeError();
    case 'int': {
      if (node.kind !== 'number' || /[.eE]/.test(node.text)) return typeError();
      const [min, max] = INT_RANGE[shape.rust] ?? [0, 0];
      if (node.value < min || node.value > max) {
        throw new DataError(`invalid value: integer \`${node.text}\`, expected ${shape.rust}`, node.end);
      }
      return node.value;
    }
    case 'vec':
      return node.kind === 'array' ? node.items.map((item) => decodeNode(item, shape.of)) : typeError();
    case 'lazy':
      return decodeNode(node, shape.of());
    case 'unit-enum': {
      if (node.kind !== 'string') return typeError();
      if (!shape.values.includes(node.value))
        throw new DataError(unknownVariant(node.value, shape.values), node.end);
      return node.value;
    }
    case 'tagged': {
      if (node.kind !== 'object') return typeError();
      try {
        return decodeTagged(node, shape);
      } catch (error) {
        if (error instanceof DataError) throw new DataError(error.message, node.end);
        throw error;
      }
    }
    case 'struct': {
      if (node.kind !== 'object') return typeError();
      const names = Object.keys(shape.fields);
      const out: Record<string, unknown> = {};
      const seen = new Set<string>();
      for (const entry of node.entries) {
        const fieldShape = shape.fields[entry.key];
        if (fieldShape === undefined) {
          if (shape.denyUnknown) {
            const expected =
              names.length === 0
                ? 'there are no fields'
                : names.length === 1
                  ? `expected \`${names[0]}\``
                  : `expected one of ${names.map((n) => `\`${n}\``).join(', ')}`;
            throw new DataError(`unknown field \`${entry.key}\`, ${expected}`, entry.keyEnd);
          }
          continue;
        }
        if (seen.has(entry.key)) throw new DataError(`duplicate field \`${entry.key}\``, entry.keyEnd);
        seen.add(entry.key);
        out[entry.key] = decodeNode(entry.value, fieldShape);
      }
      for (const name of names) {
        if (!seen.has(name) && shape.fields[name]?.type !== 'option') {
          throw new DataError(`missing field \`${name}\``, node.end);
        }
      }
      return out;
    }
  }
}

function unknownVariant(name: string, variants: readonly string[]): string {
  const expected =
    variants.length === 0
      ? 'there are no variants'
      : variants.length === 1
        ? `expected \`${variants[0]}\``
        : `expected one of ${variants.map((v) => `\`${v}\``).join(', ')}`;
  return `unknown variant \`${name}\`, ${expected}`;
}

function decodeTagged(
  node: Extract<JsonNode, { kind: 'object' }>,
  shape: Extract<Shape, { type: 'tagged' }>,
): unknown {
  const tagEntry = node.entries.find((e) => e.key === shape.tag);
  if (tagEntry === undefined) throw new DataError(`missing field \`${shape.tag}\``, node.end);
  const tag = tagEntry.value;
  if (tag.kind !== 'string') {
    throw new DataError(`invalid type: ${unexpected(tag)}, expected variant identifier`, node.end);
  }
  const names = Object.keys(shape.variants);
  const fields = shape.variants[tag.value];
  if (!names.includes(tag.value)) throw new DataError(unknownVariant(tag.value, names), node.end);
  if (fields === null || fields === undefined) return { [shape.tag]: tag.value };
  const rest: JsonNode = { ...node, entries: node.entries.filter((e) => e !== tagEntry) };
  const decoded = decodeNode(rest, { type: 'struct', name: tag.value, fields }) as Record<string, unknown>;
  return { [shape.tag]: tag.value, ...decoded };
}

/** The real server's CantonId parse errors (prefix::<34 bytes of hex>), or undefined when valid. */
export function cantonIdProblem(text: string): string | undefined {
  const parts = text.split('::');
  if (parts.length !== 2) return `Invalid Canton ID format: expected 'prefix::namespace', got '${text}'`;
  const hex = parts[1] ?? '';
  for (let i = 0; i < hex.length; i++) {
    if (!/[0-9a-fA-F]/.test(hex[i] ?? '')) return `Invalid character '${hex[i]}' at position ${i}`;
  }
  if (hex.length % 2 !== 0) return 'Odd number of digits';
  if (hex.length !== 68) return `Invalid namespace length: expected 34 bytes, got ${hex.length / 2}`;
  return undefined;
}

export type QueryField = 'string' | 'canton-id' | 'bool' | 'u32' | 'i64';

/** a decoded query: each field by name, undefined when an optional one is absent */
export type DecodedQuery = Readonly<Record<string, string | boolean | number | undefined>>;

/**
 * Decodes a query string into the given fields (serde_urlencoded rules); a field not marked optional is
 * required. Throws DecodeError with actix's `Query deserialize error: …` text.
 */
export function decodeQuery(
  query: URLSearchParams,
  fields: Record<string, { type: QueryField; optional?: boolean }>,
): DecodedQuery {
  const out: Record<string, string | boolean | number | undefined> = {};
  for (const [name, spec] of Object.entries(fields)) {
    const raw = query.get(name);
    if (raw === null) {
      if (!spec.optional) throw new DecodeError(`Query deserialize error: missing field \`${name}\``);
      out[name] = undefined;
      continue;
    }
    switch (spec.type) {
      case 'string':
        out[name] = raw;
        break;
      case 'canton-id': {
        const problem = cantonIdProblem(raw);
        if (problem !== undefined) throw new DecodeError(`Query deserialize error: ${problem}`);
        out[name] = raw;
        break;
      }
      case 'bool':
        if (raw !== 'true' && raw !== 'false') {
          throw new DecodeError('Query deserialize error: provided string was not `true` or `false`');
        }
        out[name] = raw === 'true';
        break;
      case 'u32':
      case 'i64': {
        const pattern = spec.type === 'u32' ? /^\d+$/ : /^-?\d+$/;
        if (!pattern.test(raw))
          throw new DecodeError('Query deserialize error: invalid digit found in string');
        out[name] = Number(raw);
        break;
      }
    }
  }
  return out;
}
