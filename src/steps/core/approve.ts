import { defineStep, type Outputs } from '../contract.js';
import { PausedError } from '../../errors.js';
import { coreApproveDeclaration, type With } from './approve.declaration.js';

interface Observed {
  /** approved on this invocation with --approve */
  approvedNow: boolean;
  /** the outputs of an approval given in an earlier run for this very playbook text and inputs */
  remembered: Outputs | undefined;
}

/**
 * A manual gate. The run pauses here (exit 3) until the same command runs again with `--approve <step-id>`;
 * nothing after it runs before that. An approval holds for the playbook text and inputs it was given for, so a
 * converged playbook does not ask twice; change either and the gate asks again.
 */
export const coreApprove = defineStep<With, Observed>({
  ...coreApproveDeclaration,
  observe: (ctx) =>
    Promise.resolve({
      approvedNow: ctx.approvals.has(ctx.stepId),
      remembered:
        ctx.previous?.outputs['approved_for'] === ctx.fingerprint ? ctx.previous.outputs : undefined,
    }),
  plan(w, observed) {
    if (observed.remembered && !observed.approvedNow) return { changes: [], outputs: observed.remembered };
    const summary = observed.approvedNow ? `approved: ${w.message}` : `needs approval: ${w.message}`;
    return { changes: [{ action: 'approve', summary }] };
  },
  apply(ctx, w) {
    if (!ctx.approvals.has(ctx.stepId)) {
      return Promise.reject(
        new PausedError(
          `waiting for approval: ${w.message}`,
          `check, then run the same command again with --approve ${ctx.stepId}`,
        ),
      );
    }
    return Promise.resolve({
      approved_by: ctx.actor,
      approved_at: new Date(ctx.clock.now()).toISOString(),
      approved_for: ctx.fingerprint,
    });
  },
  reconcile: () => Promise.resolve({ status: 'not-done' }),
});
