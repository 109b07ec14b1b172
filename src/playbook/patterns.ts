/** The patterns of our schemas, said in words with an example, for messages about values that do not match. */
import { EXPRESSION_PATTERN, durationSchema, stepSchema } from './playbook-schema.js';
import { nodeSchema, partyIdSchema } from './target-schema.js';

export interface PatternWords {
  /** what a matching value is called: "step id" */
  noun: string;
  /** the rule in words: "lower-case letters, digits, - and _, starting with a letter" */
  rule: string;
  example: string;
}

interface Entry {
  pattern: string;
  /** the property the pattern is for, when the same pattern means different things */
  field?: string;
  words: PatternWords;
}

const STEP_ID = stepSchema.properties.id.pattern;

const KNOWN: readonly Entry[] = [
  {
    pattern: STEP_ID,
    field: 'id',
    words: {
      noun: 'step id',
      rule: 'lower-case letters, digits, - and _, starting with a letter',
      example: 'deploy-contracts',
    },
  },
  {
    pattern: '^[a-z][a-z0-9_-]*$',
    words: {
      noun: 'name',
      rule: 'lower-case letters, digits, - and _, starting with a letter',
      example: 'node1',
    },
  },
  {
    pattern: stepSchema.properties.uses.pattern,
    words: { noun: 'step kind', rule: '<group>.<name> in lower case', example: 'core.shell' },
  },
  {
    pattern: durationSchema.anyOf[0].pattern,
    words: {
      noun: 'duration',
      rule: 'numbers with a unit (ms, s, m, h), largest unit first',
      example: '30s, 5m or 1h30m',
    },
  },
  {
    pattern: nodeSchema.properties.participantId.pattern,
    words: {
      noun: 'participant id',
      rule: '<name>::<68 lower-case hex digits>',
      example: `participant1::1220${'0'.repeat(64)}`,
    },
  },
  {
    pattern: partyIdSchema.pattern,
    words: {
      noun: 'party id',
      rule: '<hint>::<68 lower-case hex digits>, the hint of letters, digits, - and _',
      example: `holder-001::1220${'0'.repeat(64)}`,
    },
  },
  {
    pattern: '^[a-z0-9][a-z0-9._-]*$',
    words: {
      noun: 'name',
      rule: 'lower-case letters, digits, ., - and _, starting with a letter or digit',
      example: 'onboard-party',
    },
  },
  {
    pattern: '^[a-z_][a-z0-9_]*$',
    words: {
      noun: 'name',
      rule: 'lower-case letters, digits and _, not starting with a digit',
      example: 'node_count',
    },
  },
  {
    pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
    words: {
      noun: 'name',
      rule: 'letters, digits and _, not starting with a digit',
      example: 'DPM_PASSWORD',
    },
  },
  {
    pattern: EXPRESSION_PATTERN,
    words: { noun: 'expression', rule: 'a whole ${{ … }} expression', example: '${{ inputs.recipients }}' },
  },
  {
    pattern: '^https?://',
    words: { noun: 'URL', rule: 'an http:// or https:// URL', example: 'https://dpm.node1.example.com' },
  },
];

/** Words for a pattern of ours (`field`: the property it applies to); undefined for a pattern not in the table. */
export function describePattern(pattern: string, field?: string): PatternWords | undefined {
  const candidates = KNOWN.filter((entry) => entry.pattern === pattern);
  return (
    candidates.find((entry) => entry.field === field) ?? candidates.find((entry) => entry.field === undefined)
  )?.words;
}
