/**
 * The JSON Schema documents under `schemas/`, generated from the TypeScript sources (one truth): the playbook
 * schema with every step kind's `with` bundled for editors, the target schema, the `--json` event schema, the
 * saved plan schema (`plan --out`), and one schema per step kind. `npm run schemas` writes them; `ledgerbook
 * schema [name]` prints them.
 */
import type { AnyStepDeclaration } from '../playbook/step-declaration.js';
import { eventsSchema } from '../engine/events.js';
import { planSchema } from '../engine/saved-plan.js';
import { playbookSchema, stepSchema } from '../playbook/playbook-schema.js';
import { inlineLocalRefs } from '../playbook/schema-annotations.js';
import { targetSchema } from '../playbook/target-schema.js';

/** Any string with an expression in it: the validator leaves its type and content to run time. */
const CONTAINS_EXPRESSION = '\\$\\{\\{[\\s\\S]*\\}\\}';
const BASE_URL = 'https://ledgerbook.dev/schemas/';
const DRAFT = 'https://json-schema.org/draft/2020-12/schema';

type SchemaObject = Record<string, unknown>;

/** Every schema document, keyed by its path relative to `schemas/`. */
export function schemaFiles(registry: ReadonlyMap<string, AnyStepDeclaration>): Record<string, object> {
  const kinds = [...registry.values()].sort((a, b) => a.kind.localeCompare(b.kind));
  const files: Record<string, object> = {
    'playbook.schema.json': editorPlaybookSchema(kinds),
    'target.schema.json': targetSchema,
    'events.schema.json': eventsSchema,
    'plan.schema.json': planSchema,
  };
  for (const kind of kinds) files[`steps/${kind.kind}.schema.json`] = stepKindSchema(kind);
  return files;
}

/** The `with` schema of one step kind as a document of its own. */
function stepKindSchema(kind: AnyStepDeclaration): SchemaObject {
  const outputs = Object.entries(kind.outputs);
  const outputText =
    outputs.length === 0
      ? 'No outputs.'
      : `Outputs: ${outputs.map(([key, what]) => `\`${key}\` (${what})`).join(', ')}.`;
  return {
    $schema: DRAFT,
    $id: `${BASE_URL}steps/${kind.kind}.schema.json`,
    title: `${kind.kind} \`with\``,
    ...inlineLocalRefs(kind.withSchema),
    description: `${kind.summary} ${outputText}`,
  };
}

const defName = (kind: string): string => `with-${kind}`;

/**
 * The playbook schema for editors: `uses` completes to the registered kinds, `with` is checked against the
 * kind named by `uses`, and every `with` value that is not a plain string also accepts a `${{ … }}` string.
 */
function editorPlaybookSchema(kinds: readonly AnyStepDeclaration[]): SchemaObject {
  const defs: SchemaObject = {
    expression: {
      type: 'string',
      pattern: CONTAINS_EXPRESSION,
      description: 'A string with `${{ … }}`, resolved when the step runs.',
    },
  };
  for (const kind of kinds) defs[defName(kind.kind)] = withForEditor(kind);
  const step: SchemaObject = {
    ...stepSchema,
    properties: {
      ...stepSchema.properties,
      uses:
        kinds.length === 0
          ? stepSchema.properties.uses
          : {
              ...stepSchema.properties.uses,
              anyOf: kinds.map((kind) => ({ const: kind.kind, description: kind.summary })),
            },
    },
    allOf: kinds.map((kind) => ({
      if: { properties: { uses: { const: kind.kind } }, required: ['uses'] },
      then: { properties: { with: { $ref: `#/$defs/${defName(kind.kind)}` } } },
    })),
  };
  return {
    ...playbookSchema,
    properties: { ...playbookSchema.properties, steps: { ...playbookSchema.properties.steps, items: step } },
    $defs: defs,
  };
}

function withForEditor(kind: AnyStepDeclaration): SchemaObject {
  const schema = inner(inlineLocalRefs(kind.withSchema));
  return { ...schema, description: kind.summary };
}

const EXPRESSION_REF = { $ref: '#/$defs/expression' } as const;
const STRING_CONSTRAINTS = ['pattern', 'format', 'enum', 'const', 'minLength', 'maxLength'];

/** A value that any string satisfies needs no alternative. */
function acceptsAnyString(schema: SchemaObject): boolean {
  return schema['type'] === 'string' && STRING_CONSTRAINTS.every((keyword) => schema[keyword] === undefined);
}

/** A value position: the value's own schema, or a `${{ … }}` string. */
function valueSchema(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const s = schema as SchemaObject;
  if (acceptsAnyString(s)) return s;
  const { description, ...rest } = inner(s);
  return {
    ...(description === undefined ? {} : { description }),
    anyOf: [rest, EXPRESSION_REF],
  };
}

/** Transform the value positions inside a schema (properties, items …), not the schema itself. */
function inner(schema: SchemaObject): SchemaObject {
  const out: SchemaObject = { ...schema };
  const mapValues = (value: unknown): unknown =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).map(([key, sub]) => [key, valueSchema(sub)]))
      : value;
  if (schema['properties'] !== undefined) out['properties'] = mapValues(schema['properties']);
  if (schema['patternProperties'] !== undefined)
    out['patternProperties'] = mapValues(schema['patternProperties']);
  if (typeof schema['additionalProperties'] === 'object')
    out['additionalProperties'] = valueSchema(schema['additionalProperties']);
  if (schema['items'] !== undefined && typeof schema['items'] === 'object')
    out['items'] = valueSchema(schema['items']);
  if (Array.isArray(schema['prefixItems'])) out['prefixItems'] = schema['prefixItems'].map(valueSchema);
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) {
      out[keyword] = branches.map((branch: unknown) =>
        typeof branch === 'object' && branch !== null ? inner(branch as SchemaObject) : branch,
      );
    }
  }
  return out;
}
