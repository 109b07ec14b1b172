/**
 * The playbook file, without the step kinds' own `with` schemas (those live in each step module and are
 * bundled into `schemas/playbook.schema.json` by `npm run schemas`).
 */
import type { FromSchema } from 'json-schema-to-ts';

export const EXPRESSION_PATTERN = '^\\s*\\$\\{\\{[\\s\\S]*\\}\\}\\s*$';

/** `30s`, `500ms`, `5m`, `1h`, `1h30m`, or a number of seconds. */
export const durationSchema = {
  description: 'A duration: `500ms`, `30s`, `5m`, `1h`, `1h30m`, or a number of seconds.',
  anyOf: [
    { type: 'string', pattern: '^(\\d+(\\.\\d+)?(ms|s|m|h))+$' },
    { type: 'number', minimum: 0 },
  ],
} as const;

export const retrySchema = {
  type: 'object',
  description:
    'Retry policy for errors the step classes as transient (network errors, 5xx, timeouts). Permanent errors fail at once; ambiguous outcomes stop the run.',
  properties: {
    attempts: {
      type: 'integer',
      minimum: 1,
      maximum: 100,
      description: 'Total tries including the first (default 3; 1 = no retry).',
    },
    delay: { ...durationSchema, description: 'Delay before the first retry (default 1s).' },
    factor: { type: 'number', minimum: 1, maximum: 10, description: 'Backoff multiplier (default 2).' },
    max_delay: { ...durationSchema, description: 'Upper bound of one delay (default 30s).' },
    jitter: {
      type: 'boolean',
      description: 'Randomize each delay between half and all of it (default true).',
    },
  },
  additionalProperties: false,
} as const;

export const inputSchema = {
  type: 'object',
  properties: {
    type: {
      enum: ['string', 'integer', 'number', 'boolean', 'array', 'object'],
      description: 'Type of the value; `--input k=v` values are converted to it (default string).',
    },
    description: { type: 'string' },
    default: { description: 'Value when the input is not given; an input without default is required.' },
    enum: { type: 'array', minItems: 1, description: 'Allowed values.' },
  },
  additionalProperties: false,
} as const;

export const stepSchema = {
  type: 'object',
  properties: {
    id: {
      type: 'string',
      pattern: '^[a-z][a-z0-9_-]*$',
      maxLength: 64,
      description: 'Unique id: used in `${{ steps.<id>.outputs.* }}`, the journal and --approve.',
    },
    name: { type: 'string', description: 'Display name (defaults to the id).' },
    uses: {
      type: 'string',
      pattern: '^[a-z]+\\.[a-z][a-z0-9-]*$',
      description: 'The step kind, e.g. core.shell, dpm.onboard-party (`ledgerbook schema` lists them).',
    },
    with: { type: 'object', description: 'The step kind’s parameters.' },
    if: {
      description: 'Run the step only when this expression is true, e.g. `${{ inputs.deploy }}`.',
      type: ['string', 'boolean'],
    },
    for_each: {
      description:
        'Fan out: run the step once per element (a list, or an expression giving one); `${{ item }}` is the element.',
      anyOf: [{ type: 'array' }, { type: 'string', pattern: EXPRESSION_PATTERN }],
    },
    key: {
      type: 'string',
      description:
        'With for_each: an expression giving each element a stable key for checkpoints (default: the element if it is a string or number, else its index).',
    },
    concurrency: {
      type: 'integer',
      minimum: 1,
      maximum: 256,
      description: 'Items applied at once (default 1, or the step kind’s own default).',
    },
    retry: retrySchema,
    timeout: { ...durationSchema, description: 'Time limit of one attempt of one item.' },
  },
  required: ['id', 'uses'],
  additionalProperties: false,
} as const;

export const playbookSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://ledgerbook.dev/schemas/playbook.schema.json',
  title: 'ledgerbook playbook',
  description: 'A declarative runbook: inputs, variables and steps run in order with checkpoints.',
  type: 'object',
  properties: {
    $schema: { type: 'string' },
    name: {
      type: 'string',
      pattern: '^[a-z0-9][a-z0-9._-]*$',
      maxLength: 100,
      description: 'Short name: with the target it keys the journal and the lock.',
    },
    description: { type: 'string' },
    inputs: {
      type: 'object',
      description: 'Named inputs, given with `--input name=value`.',
      propertyNames: { pattern: '^[a-z_][a-z0-9_]*$' },
      additionalProperties: inputSchema,
    },
    vars: {
      type: 'object',
      description: 'Named values computed once from inputs and other expressions: `${{ vars.name }}`.',
      propertyNames: { pattern: '^[a-z_][a-z0-9_]*$' },
    },
    steps: { type: 'array', minItems: 1, items: stepSchema },
  },
  required: ['name', 'steps'],
  additionalProperties: false,
} as const;

export type PlaybookFile = FromSchema<typeof playbookSchema>;
export type StepFile = FromSchema<typeof stepSchema>;
export type RetryFile = FromSchema<typeof retrySchema>;
export type InputFile = FromSchema<typeof inputSchema>;
