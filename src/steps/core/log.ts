import { defineStep } from '../contract.js';
import { coreLogDeclaration, type With } from './log.declaration.js';

/** Prints a message. It changes nothing, so it is always in sync; it prints when its step is reached. */
export const coreLog = defineStep<With, null>({
  ...coreLogDeclaration,
  observe(ctx, w) {
    ctx.log(w.level ?? 'info', w.message);
    return Promise.resolve(null);
  },
  plan: () => ({ changes: [], outputs: {} }),
  apply: () => Promise.resolve({}),
  reconcile: () => Promise.resolve({ status: 'not-done' }),
});
