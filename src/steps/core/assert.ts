import { defineStep } from '../contract.js';
import { StepError } from '../../errors.js';
import { coreAssertDeclaration, type With } from './assert.declaration.js';

function holds(that: boolean | string): boolean {
  if (typeof that === 'boolean') return that;
  const text = that.trim().toLowerCase();
  return text !== '' && text !== 'false' && text !== '0';
}

/** Fails the run (before anything after it) when a condition does not hold; in `plan` as well. */
export const coreAssert = defineStep<With, boolean>({
  ...coreAssertDeclaration,
  observe: (_ctx, w) => Promise.resolve(holds(w.that)),
  plan(w, ok) {
    if (!ok) throw new StepError(w.message ?? 'assertion failed', { hint: 'the condition `that` is false' });
    return { changes: [], outputs: {} };
  },
  apply: () => Promise.resolve({}),
  reconcile: () => Promise.resolve({ status: 'not-done' }),
});
