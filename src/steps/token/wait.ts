/**
 * Waiting for work that takes an hour on a real network (6 Bitcoin confirmations and the attestors; a burn's
 * payout): poll within this run's budget, then pause the run (exit 3) and let a later run carry on from the
 * intents the engine keeps. Polls start at one second and back off to `interval`, so a sandbox mint is seen
 * within seconds and a real one costs a poll every `interval`.
 */
import type { ItemContext } from '../contract.js';
import { PausedError } from '../../errors.js';
import { parseDuration } from '../../playbook/duration.js';

export interface WaitBudget {
  interval?: string | number | undefined;
  wait?: string | number | undefined;
}

/** One look at the outside world: done with a result, or what was seen so far. */
export type Poll<T> = { done: true; value: T } | { done: false; seen: string };

const FIRST_PAUSE_MS = 1000;
/** stop this much before the step's timeout, so the pause (not the timeout) ends the attempt */
const TIMEOUT_MARGIN_MS = 2000;

/**
 * Polls until `poll` says done, or pauses the run with `what` and the last thing seen once the budget is spent.
 * Errors of `poll` go to the engine (a transient one is retried by the step's retry policy).
 */
export async function pollUntil<T>(
  ctx: ItemContext,
  budget: WaitBudget,
  what: string,
  poll: () => Promise<Poll<T>>,
): Promise<T> {
  const interval = parseDuration(budget.interval ?? '30s');
  const started = ctx.clock.now();
  const byWait = started + parseDuration(budget.wait ?? '10m');
  const deadline = ctx.deadline === undefined ? byWait : Math.min(byWait, ctx.deadline - TIMEOUT_MARGIN_MS);
  let pause = Math.min(FIRST_PAUSE_MS, interval);
  let lastSeen = '';
  for (let attempt = 1; ; attempt++) {
    const result = await poll();
    if (result.done) return result.value;
    // a change is news; the same sight again is not (plain output prints every progress line)
    if (result.seen !== lastSeen) ctx.progress(result.seen);
    lastSeen = result.seen;
    if (ctx.clock.now() + pause > deadline) {
      const waited = Math.round((ctx.clock.now() - started) / 1000);
      throw new PausedError(
        `${what}: not yet after ${waited} s (${attempt} poll${attempt === 1 ? '' : 's'}); last seen: ${result.seen}`,
        'run the same command again to keep waiting: the run carries on from here and sends nothing twice (raise `wait` to wait longer in one run)',
      );
    }
    await ctx.clock.sleep(pause, ctx.signal);
    pause = Math.min(pause * 2, interval);
  }
}
