import type { EventOf } from '../../engine/events.js';
import { formatDiagnostics } from '../../playbook/format.js';
import { seconds } from './style.js';

/** The last line of a run or a plan, in words, with what to do next. */
export function describeOutcome(event: EventOf<'run.done'>, planning = false): string {
  const n = event.changes;
  const changes = `${n} change${n === 1 ? '' : 's'}`;
  const took = seconds(event.durationMs);
  switch (event.status) {
    case 'succeeded':
      return n === 0
        ? `Nothing to do: everything is in sync (${took}).`
        : `Done: ${changes} applied (${took}).`;
    case 'planned':
      return n === 0 ? 'No changes: everything is in sync.' : `Plan: ${changes} to apply.`;
    case 'paused':
      return `Paused (exit ${event.exitCode}): ${event.error?.hint ?? 'run the same command again to resume'}.`;
    case 'ambiguous':
      return `Stopped for an operator decision (exit ${event.exitCode}): check what was seen above, then run again.`;
    case 'interrupted':
      return `Interrupted (exit ${event.exitCode}): run the same command again to resume.`;
    case 'failed':
      // a plan only reads: nothing was changed, and nothing of it is kept to resume
      if (planning)
        return `Plan failed (exit ${event.exitCode}): nothing was changed; fix the cause and plan again.`;
      return `Failed (exit ${event.exitCode}) after ${changes}: fix the cause and run the same command again; finished steps are skipped.`;
  }
}

/**
 * The reason a run ended, for a failure no step reported (a `vars` expression, the journal, the lock): the lines
 * to print before the outcome.
 */
export function unreportedError(event: EventOf<'run.done'>, stepFailed: boolean): string[] {
  if (stepFailed || !event.error || event.status === 'succeeded' || event.status === 'planned') return [];
  // findings of the checks before the first step (a recipient the network does not know), at their lines
  const diagnostics = event.error.diagnostics
    ? formatDiagnostics(event.error.diagnostics, { color: false }).trimEnd().split('\n')
    : [];
  if (diagnostics.length > 0) return diagnostics; // their last line counts them
  return [`error: ${event.error.message}`, ...(event.error.hint ? [`  hint: ${event.error.hint}`] : [])];
}

/** A step a plan cannot plan yet: how many items it will have, when that is known. */
export function knownAfterApply(items: number | undefined): string {
  return items === undefined
    ? 'known after apply'
    : `${items} item${items === 1 ? '' : 's'}; changes known after apply`;
}
