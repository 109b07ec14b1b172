import type { FromSchema } from 'json-schema-to-ts';
import { defineStep } from '../../engine/step.js';

const withSchema = {
  type: 'object',
  properties: {
    message: { type: 'string', description: 'The text to print.' },
    level: { enum: ['info', 'warn', 'error'], description: 'Default info.' },
  },
  required: ['message'],
  additionalProperties: false,
} as const;

type With = FromSchema<typeof withSchema>;

/** Prints a message. It changes nothing, so it is always in sync; it prints when its step is reached. */
export const coreLog = defineStep<With, null>({
  kind: 'core.log',
  summary: 'Print a message.',
  withSchema,
  outputs: {},
  needsTarget: false,
  observe(ctx, w) {
    ctx.log(w.level ?? 'info', w.message);
    return Promise.resolve(null);
  },
  plan: () => ({ changes: [], outputs: {} }),
  apply: () => Promise.resolve({}),
  reconcile: () => Promise.resolve({ status: 'not-done' }),
});
