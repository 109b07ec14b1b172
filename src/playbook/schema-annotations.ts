/**
 * What a step kind's `with` schema says about each field of a given `with` value: `x-secret` (must come from
 * `${{ secrets.* }}`), `x-lazy-expression` (the step evaluates it itself), and whether it is a duration.
 */
import type { JsonSchema } from './step-declaration.js';
import { durationSchema } from './playbook-schema.js';
import { childPointer } from './pointer.js';

export interface FieldAnnotations {
  secret: boolean;
  lazy: boolean;
  duration: boolean;
  /** the field's value */
  value: unknown;
}

type SchemaObject = Record<string, unknown>;

const DURATION_PATTERN = durationSchema.anyOf[0].pattern;

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isDurationSchema(schema: SchemaObject): boolean {
  const branches = schema['anyOf'] ?? schema['oneOf'];
  return Array.isArray(branches) && branches.some((b) => isObject(b) && b['pattern'] === DURATION_PATTERN);
}

/** Resolve a local reference (`#/$defs/name`, `#/definitions/name`) against the root schema. */
function resolveLocal(root: SchemaObject, ref: string): SchemaObject | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node)) return undefined;
    node = node[segment];
  }
  return isObject(node) ? node : undefined;
}

/** Annotations of every field present in `value`, by JSON pointer relative to `value` (`""` is the value). */
export function annotate(schema: JsonSchema, value: unknown): ReadonlyMap<string, FieldAnnotations> {
  if (!annotates(schema)) return NONE;
  const found = new Map<string, FieldAnnotations>();
  const properties = isObject(value) ? flatProperties(schema) : undefined;
  if (properties === undefined) {
    walk(schema, schema, value, '', found, 0);
    return found;
  }
  // the usual `with`: the annotations of each field come from its own property, worked out once per property
  for (const key in value as SchemaObject) {
    if (!Object.hasOwn(value as SchemaObject, key) || !Object.hasOwn(properties, key)) continue;
    const child = (value as SchemaObject)[key];
    const at = childPointer('', key);
    if (typeof child === 'object' && child !== null) {
      walk(schema, properties[key], child, at, found, 1);
    } else {
      const flags = scalarFlags(schema, properties[key]);
      if (flags) found.set(at, { ...flags, value: child });
    }
  }
  return found;
}

type Flags = Omit<FieldAnnotations, 'value'>;
const flat = new WeakMap<object, SchemaObject | null>();
const flagsOf = new WeakMap<object, WeakMap<object, Flags | null>>();

/**
 * The `properties` of an object schema whose annotations all sit in them (nothing annotated at its top, in
 * its branches, patterns or additional properties), or undefined: then only the general walk will do.
 */
function flatProperties(schema: SchemaObject): SchemaObject | undefined {
  let properties = flat.get(schema);
  if (properties === undefined) {
    const elsewhere =
      schema['x-secret'] === true ||
      schema['x-lazy-expression'] === true ||
      isDurationSchema(schema) ||
      typeof schema['$ref'] === 'string' ||
      ['allOf', 'anyOf', 'oneOf', 'if', 'then', 'else', 'patternProperties', 'additionalProperties'].some(
        (keyword) =>
          isObject(schema[keyword]) || Array.isArray(schema[keyword])
            ? annotates(schema[keyword] as object)
            : false,
      );
    properties = elsewhere ? null : isObject(schema['properties']) ? schema['properties'] : {};
    flat.set(schema, properties);
  }
  return properties ?? undefined;
}

/** The annotations of a scalar value under `sub` (a property's schema), worked out once. */
function scalarFlags(root: SchemaObject, sub: unknown): Flags | null {
  if (!isObject(sub)) return null;
  let byRoot = flagsOf.get(root);
  if (!byRoot) {
    byRoot = new WeakMap();
    flagsOf.set(root, byRoot);
  }
  let flags = byRoot.get(sub);
  if (flags === undefined) {
    const found = new Map<string, FieldAnnotations>();
    walk(root, sub, null, '', found, 1);
    const at = found.get('');
    flags = at ? { secret: at.secret, lazy: at.lazy, duration: at.duration } : null;
    byRoot.set(sub, flags);
  }
  return flags;
}

const NONE: ReadonlyMap<string, FieldAnnotations> = new Map();
const annotating = new WeakMap<object, boolean>();

/**
 * Whether anything in `schema` (a schema or a part of one) is annotated: most step kinds' schemas, and most
 * fields of the others, are not, and need no walk per value. A local `$ref` may lead anywhere: it counts as
 * annotated.
 */
function annotates(schema: object): boolean {
  let found = annotating.get(schema);
  if (found === undefined) {
    const seen = new Set<unknown>();
    const search = (node: unknown): boolean => {
      if (typeof node !== 'object' || node === null || seen.has(node)) return false;
      seen.add(node);
      if (Array.isArray(node)) return node.some(search);
      const record = node as SchemaObject;
      if (record['x-secret'] === true || record['x-lazy-expression'] === true || isDurationSchema(record))
        return true;
      if (typeof record['$ref'] === 'string') return true;
      return Object.values(record).some(search);
    };
    found = search(schema);
    annotating.set(schema, found);
  }
  return found;
}

const patterns = new Map<string, RegExp>();

function patternOf(source: string): RegExp {
  let pattern = patterns.get(source);
  if (!pattern) {
    pattern = new RegExp(source, 'u');
    patterns.set(source, pattern);
  }
  return pattern;
}

function walk(
  root: SchemaObject,
  schema: unknown,
  value: unknown,
  pointer: string,
  found: Map<string, FieldAnnotations>,
  depth: number,
): void {
  if (!isObject(schema) || depth > 64 || !annotates(schema)) return;
  const secret = schema['x-secret'] === true;
  const lazy = schema['x-lazy-expression'] === true;
  const duration = isDurationSchema(schema);
  if (secret || lazy || duration) {
    const known = found.get(pointer) ?? { secret: false, lazy: false, duration: false, value };
    found.set(pointer, {
      secret: known.secret || secret,
      lazy: known.lazy || lazy,
      duration: known.duration || duration,
      value,
    });
  }
  const again = (sub: unknown): void => walk(root, sub, value, pointer, found, depth + 1);
  if (typeof schema['$ref'] === 'string') again(resolveLocal(root, schema['$ref']));
  for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) branches.forEach(again);
  }
  again(schema['if']);
  again(schema['then']);
  again(schema['else']);

  if (Array.isArray(value)) {
    const prefix = Array.isArray(schema['prefixItems']) ? (schema['prefixItems'] as unknown[]) : [];
    value.forEach((element, i) =>
      walk(
        root,
        i < prefix.length ? prefix[i] : schema['items'],
        element,
        childPointer(pointer, i),
        found,
        depth + 1,
      ),
    );
  } else if (isObject(value)) {
    const properties = isObject(schema['properties']) ? schema['properties'] : {};
    const patterns = isObject(schema['patternProperties']) ? Object.entries(schema['patternProperties']) : [];
    for (const [key, child] of Object.entries(value)) {
      const at = childPointer(pointer, key);
      let matched = false;
      if (Object.hasOwn(properties, key)) {
        walk(root, properties[key], child, at, found, depth + 1);
        matched = true;
      }
      for (const [pattern, sub] of patterns) {
        if (patternOf(pattern).test(key)) {
          walk(root, sub, child, at, found, depth + 1);
          matched = true;
        }
      }
      if (!matched) walk(root, schema['additionalProperties'], child, at, found, depth + 1);
    }
  }
}

/**
 * The schema with local `$ref`s replaced by what they refer to (recursive references stay references), so that
 * ajv's error paths follow the structure of the schema and errors can be grouped by where they come from.
 */
export function inlineLocalRefs(schema: JsonSchema): JsonSchema {
  const root = schema as SchemaObject;
  const inline = (node: unknown, refs: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((element) => inline(element, refs));
    if (!isObject(node)) return node;
    const ref = node['$ref'];
    if (typeof ref === 'string' && !refs.includes(ref)) {
      const target = resolveLocal(root, ref);
      if (target) {
        const { $ref: _ref, ...siblings } = node;
        const resolved = inline(target, [...refs, ref]) as SchemaObject;
        if (Object.keys(siblings).length === 0) return resolved;
        const inlinedSiblings = inline(siblings, refs) as SchemaObject;
        const allOf = Array.isArray(inlinedSiblings['allOf']) ? (inlinedSiblings['allOf'] as unknown[]) : [];
        return { ...inlinedSiblings, allOf: [...allOf, resolved] };
      }
    }
    return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, inline(child, refs)]));
  };
  return inline(root, []) as JsonSchema;
}
