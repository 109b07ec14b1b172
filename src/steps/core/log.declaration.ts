import type { FromSchema } from 'json-schema-to-ts';
import { declareStep } from '../../playbook/step-declaration.js';

const withSchema = {
  type: 'object',
  properties: {
    message: { type: 'string', description: 'The text to print.' },
    level: { enum: ['info', 'warn', 'error'], description: 'Default info.' },
  },
  required: ['message'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `core.log`; its run-time code is ./log.ts. */
export const coreLogDeclaration = declareStep<With>({
  kind: 'core.log',
  summary: 'Print a message.',
  withSchema,
  outputs: {},
  needsTarget: false,
});
