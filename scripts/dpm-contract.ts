/**
 * The DPM operator API's one description, contracts/dpm.openapi.yaml, and the two views derived from it:
 *
 * - the client's view (`clientView`): what a client may rely on. Responses stay open (servers add fields), a
 *   field the document lists as sent but nullable may also be missing (an `Option` of the server), and an id in a
 *   response is checked loosely (`<prefix>::<namespace>`: the published samples shorten namespaces). Requests are
 *   checked as written: what we send allows nothing undocumented.
 * - the reference's view (`strictView`): what the server sends, field by field. Every object is closed unless the
 *   document opens it (`additionalProperties`), so a field the reference does not document is reported.
 *
 * The generator (scripts/generate-dpm-wire.mjs) writes the client's view into src/clients/dpm-wire.generated.ts;
 * the contract tests (test/contract/dpm-*.test.ts) check the sandbox's answers against the reference's view.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';

/** Where the document lives, from the repository root. */
export const DPM_DOCUMENT = 'contracts/dpm.openapi.yaml';

/** What `npm run contracts` writes from it, from the repository root. */
export const GENERATED_FILES = {
  client: 'src/clients/dpm-wire.generated.ts',
  /** the names the step kinds' declarations check a `with` against, without the schemas (what `validate` loads) */
  names: 'src/clients/dpm-wire-names.generated.ts',
  /** the sandbox's request bodies: re-point here when the sandbox moves */
  sandbox: 'packages/sandbox/src/dpm/wire.generated.ts',
} as const;

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

export type Schema = Record<string, unknown>;

interface MediaType {
  schema: { $ref: string };
}
interface Parameter {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  schema: Schema;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> } | { $ref: string }>;
  'x-idempotent': boolean;
  'x-admin': boolean;
}
export interface DpmDocument {
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Schema>;
    responses?: Record<string, { content: Record<string, MediaType> }>;
  };
}

/** One route of the document: how to call it and the names of its body schemas. */
export interface DpmOperation {
  id: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  /** the success status */
  status: number;
  /** component name of the success body */
  response: string;
  /** component name of the request body, if it takes one */
  request?: string;
  /** the query parameters the server extracts (`web::Query<T>`), by name */
  query: Record<string, QueryParameter>;
  idempotent: boolean;
  admin: boolean;
}

/** A query parameter as the server's extractor reads it: its Rust type, and whether it is an `Option`. */
export interface QueryParameter {
  type: 'string' | 'canton-id' | 'bool' | 'u32' | 'i64';
  optional: boolean;
}

function queryParameter(op: string, { name, required, schema }: Parameter): QueryParameter {
  const optional = required !== true;
  if (schema.$ref === `${COMPONENT}CantonId`) return { type: 'canton-id', optional };
  if (schema.type === 'string') return { type: 'string', optional };
  if (schema.type === 'boolean') return { type: 'bool', optional };
  if (schema.type === 'integer' && schema.format === 'uint32') return { type: 'u32', optional };
  if (schema.type === 'integer' && schema.format === 'int64') return { type: 'i64', optional };
  throw new Error(`${op}: query parameter ${name} has a schema the extractor cannot read`);
}

export function loadDpmDocument(file = join(repoRoot, DPM_DOCUMENT)): DpmDocument {
  return load(readFileSync(file, 'utf8')) as DpmDocument;
}

const COMPONENT = '#/components/schemas/';

/** The component a `$ref` names. */
export function refName(ref: string): string {
  if (!ref.startsWith(COMPONENT)) throw new Error(`unsupported $ref ${ref}`);
  return ref.slice(COMPONENT.length);
}

function jsonBody(content: Record<string, MediaType> | undefined): string | undefined {
  const media = content?.['application/json'];
  return media === undefined ? undefined : refName(media.schema.$ref);
}

export function dpmOperations(doc: DpmDocument): DpmOperation[] {
  const operations: DpmOperation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const success = Object.entries(op.responses).find(([status]) => /^2\d\d$/.test(status));
      const response = success && 'content' in success[1] ? jsonBody(success[1].content) : undefined;
      if (success === undefined || response === undefined)
        throw new Error(`${method} ${path}: no JSON success response`);
      const request = jsonBody(op.requestBody?.content);
      const query = Object.fromEntries(
        (op.parameters ?? [])
          .filter((p) => p.in === 'query')
          .map((p) => [p.name, queryParameter(`${method} ${path}`, p)]),
      );
      operations.push({
        id: op.operationId,
        method: method.toUpperCase() as DpmOperation['method'],
        path,
        status: Number(success[0]),
        response,
        ...(request === undefined ? {} : { request }),
        query,
        idempotent: op['x-idempotent'],
        admin: op['x-admin'],
      });
    }
  }
  return operations;
}

/** Rewrites every schema node bottom-up (objects only; arrays are walked). */
function mapSchema(node: unknown, visit: (schema: Schema) => Schema): unknown {
  if (Array.isArray(node)) return node.map((item) => mapSchema(item, visit));
  if (node === null || typeof node !== 'object') return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    // `properties` is a map of names; `enum`, `const`, `required`, `discriminator` hold values, not schemas
    if (key === 'properties')
      out[key] = Object.fromEntries(
        Object.entries(value as Schema).map(([name, schema]) => [name, mapSchema(schema, visit)]),
      );
    else if (key === 'enum' || key === 'const' || key === 'required' || key === 'discriminator')
      out[key] = value;
    else out[key] = mapSchema(value, visit);
  }
  return visit(out);
}

/** Whether `schema` admits `null` explicitly (a nullable type, a null in an enum, a null branch). */
export function admitsNull(schema: Schema): boolean {
  const { type, anyOf } = schema;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  return Array.isArray(anyOf) && anyOf.some((branch) => admitsNull(branch as Schema));
}

/** An id as the client accepts it in a response: `<prefix>::<namespace>`, the namespace not checked. */
export const LOOSE_CANTON_ID: Schema = {
  type: 'string',
  pattern: '^[^:]+(?::[^:]+)*::[^:]+$',
  description: '`<prefix>::<namespace>`',
};

/** Keywords of the document that are for the sandbox's decoder (Rust types), not for a JSON Schema validator. */
function withoutDecoderKeywords(node: Schema): Schema {
  const { format: _format, discriminator: _discriminator, ...rest } = node;
  return rest;
}

/** A tagged union (`oneOf` + `discriminator`) checked by its tag only: `{"type": "<one of the variants>", …}`. */
function byTagOnly(node: Schema): Schema {
  const tag = (node.discriminator as { propertyName: string }).propertyName;
  const variants = (node.oneOf as Schema[]).map(
    (variant) => (variant.properties as Record<string, Schema>)[tag]!.const,
  );
  return {
    ...(node.title === undefined ? {} : { title: node.title }),
    type: 'object',
    properties: { [tag]: { enum: variants } },
    required: [tag],
    additionalProperties: true,
  };
}

/**
 * The client's view of one component. A response: a nullable field may be missing and a list the reference says
 * is omitted when empty (`minItems: 1`) may come empty, as the samples show. A request, what we send: nothing
 * undocumented (every object closed), a tagged union checked by its tag only (the server names a wrong field of
 * a variant itself).
 */
export function clientView(schema: Schema, role: 'request' | 'response'): Schema {
  return mapSchema(schema, (found) => {
    let node = withoutDecoderKeywords(found);
    if (role === 'request') {
      if (found.discriminator !== undefined) return byTagOnly(found);
      return typeof node.properties === 'object' && node.additionalProperties === undefined
        ? { ...node, additionalProperties: false }
        : node;
    }
    if (node.type === 'array' || (Array.isArray(node.type) && node.type.includes('array'))) {
      const { minItems: _omittedWhenEmpty, ...rest } = node;
      node = rest;
    }
    if (!Array.isArray(node.required) || typeof node.properties !== 'object') return node;
    const properties = node.properties as Record<string, Schema>;
    const required = (node.required as string[]).filter((name) => {
      const property = properties[name];
      return property === undefined || !admitsNull(property);
    });
    const { required: _dropped, ...rest } = node;
    return required.length > 0 ? { ...rest, required } : rest;
  }) as Schema;
}

/** A component with every `$ref` replaced by the component it names (the components hold no cycles). */
export function resolved(doc: DpmDocument, name: string, substitute: Record<string, Schema> = {}): Schema {
  const seen: string[] = [];
  const inline = (target: string): Schema => {
    if (seen.includes(target)) throw new Error(`a cycle of $refs through ${target}`);
    const schema = substitute[target] ?? doc.components.schemas[target];
    if (schema === undefined) throw new Error(`no component ${target}`);
    seen.push(target);
    const out = mapSchema(schema, (node) =>
      typeof node.$ref === 'string' ? { ...inline(refName(node.$ref)), ...withoutRef(node) } : node,
    ) as Schema;
    seen.pop();
    return out;
  };
  return inline(name);
}

function withoutRef(node: Schema): Schema {
  const { $ref: _ref, ...rest } = node;
  return rest;
}

/** The reference's view of a component: resolved, every object closed unless the document opens it. */
export function strictView(doc: DpmDocument, name: string): Schema {
  return mapSchema(resolved(doc, name), (found) => {
    const node = withoutDecoderKeywords(found);
    return typeof node.properties === 'object' && node.additionalProperties === undefined
      ? { ...node, additionalProperties: false }
      : node;
  }) as Schema;
}

/** Every component a response (or a request) names, with the components they use in turn. */
export function componentsOf(doc: DpmDocument, role: 'request' | 'response'): Set<string> {
  const found = new Set<string>();
  const visit = (name: string): void => {
    if (found.has(name)) return;
    found.add(name);
    mapSchema(doc.components.schemas[name], (node) => {
      if (typeof node.$ref === 'string') visit(refName(node.$ref));
      return node;
    });
  };
  for (const op of dpmOperations(doc)) {
    const root = role === 'request' ? op.request : op.response;
    if (root !== undefined) visit(root);
  }
  return found;
}

/** What the client's view puts in place of a component: checks of the reference the client does not rely on. */
const CLIENT_SUBSTITUTES: Record<string, Schema> = {
  CantonId: LOOSE_CANTON_ID,
  UnixSeconds: { type: 'integer', description: 'unix seconds' },
};

/** `NodeConfigResponse` → `nodeConfigResponseSchema` */
export function schemaConstName(component: string): string {
  return `${component[0]!.toLowerCase()}${component.slice(1)}Schema`;
}

/** The components in an order where each comes after the ones it names (in `views`), from `roots`. */
function dependencyOrder(views: Record<string, Schema>, roots: Iterable<string>): string[] {
  const order: string[] = [];
  const visiting = new Set<string>();
  const visit = (name: string): void => {
    if (order.includes(name)) return;
    if (visiting.has(name)) throw new Error(`a cycle of $refs through ${name}`);
    visiting.add(name);
    mapSchema(views[name], (node) => {
      if (typeof node.$ref === 'string') visit(refName(node.$ref));
      return node;
    });
    order.push(name);
  };
  for (const name of roots) visit(name);
  return order;
}

/** A schema as TypeScript source: `$ref`s become the constants of the components they name. */
function schemaSource(node: unknown): string {
  if (Array.isArray(node)) return `[${node.map(schemaSource).join(', ')}]`;
  if (node === null || typeof node !== 'object') return JSON.stringify(node);
  const entries = Object.entries(node);
  const ref = entries.find(([key]) => key === '$ref');
  const rest = entries.filter(([key]) => key !== '$ref');
  const fields = rest.map(([key, value]) => `${JSON.stringify(key)}: ${schemaSource(value)}`);
  if (ref === undefined) return `{ ${fields.join(', ')} }`;
  const target = schemaConstName(refName(ref[1] as string));
  return fields.length === 0 ? target : `{ ...${target}, ${fields.join(', ')} }`;
}

/**
 * src/clients/dpm-wire.generated.ts, unformatted: one constant per component (the client's view), its type, and
 * the operations. scripts/generate-dpm-wire.mjs formats and writes it; a test compares it with the file.
 */
export function dpmWireSource(doc: DpmDocument = loadDpmDocument()): string {
  const lines = [
    `// Generated from ${DPM_DOCUMENT} by scripts/generate-dpm-wire.mjs (npm run contracts): do not edit.`,
    '// The client’s view of the document (scripts/dpm-contract.ts clientView).',
    "import type { FromSchema } from 'json-schema-to-ts';",
    '',
  ];
  const views = clientViews(doc);
  const roots = [
    ...dpmOperations(doc).flatMap((op) =>
      op.request === undefined ? [op.response] : [op.response, op.request],
    ),
    ...Object.values(doc.components.responses ?? {}).map((r) =>
      refName(r.content['application/json']!.schema.$ref),
    ),
  ];
  for (const name of dependencyOrder(views, roots)) {
    const constName = schemaConstName(name);
    lines.push(`export const ${constName} = ${schemaSource(views[name])} as const;`);
    lines.push(`export type ${name} = FromSchema<typeof ${constName}>;`);
  }
  lines.push('', '/** Every route of the document: method, path, success status, body schemas. */');
  lines.push('export const dpmOperations = {');
  for (const op of dpmOperations(doc)) {
    const request = op.request === undefined ? '' : `, request: ${schemaConstName(op.request)}`;
    lines.push(
      `  ${op.id}: { method: '${op.method}', path: '${op.path}', status: ${op.status}, response: ${schemaConstName(op.response)}${request}, query: ${JSON.stringify(op.query)}, idempotent: ${op.idempotent}, admin: ${op.admin} },`,
    );
  }
  lines.push('} as const;', '');
  return lines.join('\n');
}

/** Each component of the document in the client's view, by name. */
function clientViews(doc: DpmDocument): Record<string, Schema> {
  const requests = componentsOf(doc, 'request');
  const responses = componentsOf(doc, 'response');
  const views: Record<string, Schema> = {};
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    if (requests.has(name) && responses.has(name))
      throw new Error(`${name} is both a request and a response body`);
    views[name] = requests.has(name)
      ? clientView(schema, 'request')
      : clientView(CLIENT_SUBSTITUTES[name] ?? schema, 'response');
  }
  return views;
}

/** The `enum` at `path` of a component in the client's view: a list of strings, or the document changed shape. */
function enumOf(views: Record<string, Schema>, component: string, path: readonly string[]): string[] {
  let node: unknown = views[component];
  for (const key of path) node = (node as Record<string, unknown> | undefined)?.[key];
  if (!Array.isArray(node) || !node.every((value) => typeof value === 'string'))
    throw new Error(`${component}: no list of names at ${path.join('.')}`);
  return node;
}

/**
 * src/clients/dpm-wire-names.generated.ts, unformatted: the names of the client's view that the step kinds'
 * declarations check a `with` against, in a module without the schemas, so that a `validate` does not build the
 * whole contract's schemas for two lists (docs/architecture.md "Start-up").
 */
export function dpmNamesSource(doc: DpmDocument = loadDpmDocument()): string {
  const views = clientViews(doc);
  const list = (names: string[]): string =>
    `[${names.map((name) => JSON.stringify(name)).join(', ')}] as const`;
  return [
    `// Generated from ${DPM_DOCUMENT} by scripts/generate-dpm-wire.mjs (npm run contracts): do not edit.`,
    '// Names of the client’s view (dpm-wire.generated.ts) without its schemas, for the step kinds’ declarations.',
    '',
    '/** `WorkflowRun.kind`: the kinds of DPM workflow. */',
    `export const WORKFLOW_KINDS = ${list(enumOf(views, 'WorkflowRun', ['properties', 'kind', 'enum']))};`,
    '/** `FieldDefinition.type`: the variants of a contract field (§7). */',
    `export const FIELD_DEFINITION_TYPES = ${list(enumOf(views, 'FieldDefinition', ['properties', 'type', 'enum']))};`,
    '',
  ].join('\n');
}

/** What the sandbox's decoder reads of a schema (serde checks types, names and presence, not patterns). */
const DECODER_KEYWORDS = new Set([
  '$ref',
  'title',
  'type',
  'format',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'oneOf',
  'discriminator',
  'enum',
  'const',
]);

function decoderKeywordsOnly(node: Schema): Schema {
  return Object.fromEntries(Object.entries(node).filter(([key]) => DECODER_KEYWORDS.has(key)));
}

/**
 * The sandbox's copy of the request bodies, unformatted: the components the requests name, as the document has
 * them (`$ref`s kept), and the body of each route. The sandbox turns them into its decoder's shapes
 * (packages/sandbox/src/dpm/wire.ts), so that it refuses with the real server's texts exactly what the document refuses.
 */
export function sandboxRequestsSource(doc: DpmDocument = loadDpmDocument()): string {
  const requests = [...componentsOf(doc, 'request')].sort();
  const bodies = Object.fromEntries(
    dpmOperations(doc).flatMap((op) =>
      op.request === undefined ? [] : [[`${op.method} ${op.path}`, op.request]],
    ),
  );
  const components = Object.fromEntries(
    requests.map((name) => [name, mapSchema(doc.components.schemas[name], decoderKeywordsOnly)]),
  );
  const queries = Object.fromEntries(
    dpmOperations(doc).flatMap((op) =>
      Object.keys(op.query).length === 0 ? [] : [[`${op.method} ${op.path}`, op.query]],
    ),
  );
  return [
    `// Generated from ${DPM_DOCUMENT} by scripts/generate-dpm-wire.mjs (npm run contracts): do not edit.`,
    '// The request bodies of the DPM operator API as the server decodes them; wire.ts makes decoder shapes of them.',
    '',
    '/** Method + path template → the component of its request body. */',
    `export const requestBodyOf: Readonly<Record<string, string>> = ${JSON.stringify(bodies)};`,
    '',
    '/** The components the request bodies name (JSON Schema, `$ref`s to each other). */',
    `export const requestComponents: Readonly<Record<string, object>> = ${JSON.stringify(components)};`,
    '',
    '/** Method + path template → the query parameters its extractor reads (`optional`: an `Option` field). */',
    `export const queryOf: Readonly<Record<string, Readonly<Record<string, { type: 'string' | 'canton-id' | 'bool' | 'u32' | 'i64'; optional: boolean }>>>> = ${JSON.stringify(queries)};`,
    '',
  ].join('\n');
}
