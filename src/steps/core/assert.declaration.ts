import type { FromSchema } from 'json-schema-to-ts';
import { declareStep } from '../../playbook/step-declaration.js';

const withSchema = {
  type: 'object',
  properties: {
    that: {
      type: ['boolean', 'string'],
      description: 'A condition, usually `${{ … }}`; a string is true when it is not empty, "false" or "0".',
    },
    message: { type: 'string', description: 'What failed, in words (shown when the condition is false).' },
  },
  required: ['that'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `core.assert`; its run-time code is ./assert.ts. */
export const coreAssertDeclaration = declareStep<With>({
  kind: 'core.assert',
  summary: 'Stop the run unless a condition holds.',
  withSchema,
  outputs: {},
  needsTarget: false,
});
