import type { FromSchema } from 'json-schema-to-ts';
import { StepError } from '../../errors.js';
import { defineStep } from '../../engine/step.js';

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

type With = FromSchema<typeof withSchema>;

function holds(that: boolean | string): boolean {
  if (typeof that === 'boolean') return that;
  const text = that.trim().toLowerCase();
  return text !== '' && text !== 'false' && text !== '0';
}

/** Fails the run (before anything after it) when a condition does not hold; in `plan` as well. */
export const coreAssert = defineStep<With, boolean>({
  kind: 'core.assert',
  summary: 'Stop the run unless a condition holds.',
  withSchema,
  outputs: {},
  needsTarget: false,
  observe: (_ctx, w) => Promise.resolve(holds(w.that)),
  plan(w, ok) {
    if (!ok) throw new StepError(w.message ?? 'assertion failed', { hint: 'the condition `that` is false' });
    return { changes: [], outputs: {} };
  },
  apply: () => Promise.resolve({}),
  reconcile: () => Promise.resolve({ status: 'not-done' }),
});
