/**
 * The decision every DPM workflow kind makes from what it observed, and the change it plans from it (dpm-api.md
 * §12a, DESIGN.md principle 3). One ladder, first rung that holds wins:
 * 1. the declared end state holds: in sync — unless a run of the same change is still in flight on a member (it
 *    lingers at Complete): followed, done means done; or unless a completed run of it left an invitation pending
 *    on a node this target controls: declined;
 * 2. another change of the same thing in flight on a member: refused, naming it (rivalError);
 * 3. a run of the same change in flight on a member (the coordinator first): followed (adopted);
 * 4. the coordinator's last run of the change (earlierRun): in progress → followed; failed → retried when that is
 *    safe, else refused with who declined and how to clear it; completed → its effect is verified;
 * 5. otherwise: started.
 * A kind says what it observed and keeps what is its own: refusals before the ladder (a party it must not change),
 * what refines "in sync" or "start" (a run it takes part in as a peer, preconditions of its start) and which last
 * run it hands over to be judged. The decision never throws: a refusal is a decision, thrown by the kinds that
 * refuse in every mode and reported in the plan by those where an earlier step may still clear it.
 */
import type { WorkflowRun } from '../../clients/dpm-wire.js';
import type { StepError } from '../../errors.js';
import type { Change, JsonValue, Outputs } from '../contract.js';
import { earlierRun } from './party-common.js';
import type { Begin, StartOutcome } from './workflow-lifecycle.js';
import {
  changeOf,
  describeRun,
  pendingOf,
  rivalError,
  rivalOf,
  type Namer,
  type NodeRun,
  type RunMatch,
} from './workflow-runs.js';
import { declineChange, type Leftover } from './workflow-waits.js';

export type Decision =
  /** the declared end state holds: the step's outputs */
  | { action: 'in-sync'; outputs: Outputs }
  /** the end state holds, but completed runs of the change left invitations pending here: declined */
  | { action: 'decline'; leftovers: readonly Leftover[] }
  /** a run of the change in flight: adopted on the coordinator, or followed where another member coordinates it */
  | { action: 'follow'; at: NodeRun }
  /** the coordinator's failed run, safe to retry from its failed step */
  | { action: 'retry'; run: WorkflowRun }
  /** the coordinator's run of the change completed: its effect is waited for */
  | { action: 'verify'; run: WorkflowRun }
  | { action: 'start' }
  /** what stops a start: another change in the way, or a failed run that is not safe to retry */
  | { action: 'refuse'; error: StepError };

/** What every workflow kind observes about its change. */
export interface RunsObserved {
  coordinator: string;
  /** the runs that carry the change (see RunMatch) */
  match: RunMatch;
  /** the coordinator runs that concern the same thing on the coordinator and the other member nodes */
  around: readonly NodeRun[];
  /** the step's outputs when the declared end state holds; undefined when it does not */
  reached: Outputs | undefined;
  /** invitations of the change's completed runs still pending on the nodes this target controls */
  leftovers?: readonly Leftover[];
  /** the coordinator's last run of this very change, whose outcome the ladder judges (rung 4); none: undefined */
  last?: WorkflowRun | undefined;
  /** how messages name a participant */
  name: Namer;
}

export interface DecisionRules {
  /** how a refusal because of another change opens (default: `refusing to start`) */
  lead?: string;
  /** a run of the same change in flight is followed before another change in the way is looked for */
  followBeforeRivals?: boolean;
}

/** The ladder (see the module's comment) over what a kind observed. */
export function decideRun(seen: RunsObserved, rules: DecisionRules = {}): Decision {
  const { coordinator, match, around, name } = seen;
  const pending = pendingOf(around, match, coordinator);
  if (seen.reached) {
    if (pending) return { action: 'follow', at: pending };
    const leftovers = seen.leftovers ?? [];
    return leftovers.length > 0
      ? { action: 'decline', leftovers }
      : { action: 'in-sync', outputs: seen.reached };
  }
  if (pending && rules.followBeforeRivals) return { action: 'follow', at: pending };
  const rival = rivalOf(around, match);
  if (rival) return { action: 'refuse', error: rivalError(match, rival, name, rules.lead) };
  if (pending) return { action: 'follow', at: pending };
  const earlier = earlierRun(name, coordinator, seen.last);
  switch (earlier.verdict) {
    case 'adopt':
      return { action: 'follow', at: { node: coordinator, run: earlier.run } };
    case 'retry':
      return { action: 'retry', run: earlier.run };
    case 'blocked':
      return { action: 'refuse', error: earlier.error };
    case 'none':
      return seen.last?.status === 'completed' ? { action: 'verify', run: seen.last } : { action: 'start' };
  }
}

/** What a kind says in the changes it plans; the rest is the same for every kind. */
export interface ChangeWording {
  /** what every change's details carry (the run's node and instance are added) */
  details?: Record<string, JsonValue>;
  /** ends the summary of following a run: who accepts on their own */
  note?: string;
  /** what the coordinator shows once a completed run's effect is there: `sees party 'alpha'` */
  verified?: string;
  /** the start, with what would refuse it as things stand now (reported in `plan`) */
  start(refusal?: StepError): Change;
  /**
   * false: the coordinator is another operator's node (not controlled here): nothing is started here; that
   * operator's run is waited for and followed (startWorkflow), and the plan says so
   */
  startsHere: boolean;
  /** the plan's wait for that operator's start; default: the start's own summary, awaited (awaitedStart) */
  awaited?(): Change;
}

/** The planned changes of a decision (the kinds plan `in-sync` themselves: no change, their outputs). */
export function plannedChanges(
  decision: Exclude<Decision, { action: 'in-sync' }>,
  coordinator: string,
  name: Namer,
  wording: ChangeWording,
): Change[] {
  const details = wording.details ?? {};
  switch (decision.action) {
    case 'decline':
      return decision.leftovers.map((l) => declineChange(l, details));
    case 'follow':
      return [followChange(decision.at, coordinator, name, details, wording.note)];
    case 'retry': {
      const retry = retryChange(decision.run, coordinator, details);
      return [wording.startsHere ? retry : awaitedStart(retry, coordinator)];
    }
    case 'verify':
      return [
        {
          action: 'wait',
          summary: `run ${decision.run.instance_name} completed: wait until ${coordinator} ${wording.verified ?? 'shows its effect'}`,
          details: { ...details, instance: decision.run.instance_name },
        },
      ];
    case 'start':
      if (wording.startsHere) return [wording.start()];
      return [wording.awaited?.() ?? awaitedStart(wording.start(), coordinator)];
    case 'refuse':
      return [wording.start(decision.error)];
  }
}

/** How a decision to follow, retry or start gets its run (seeRunThrough); `start` is the kind's startWorkflow. */
export function beginOf(
  decision: Extract<Decision, { action: 'follow' | 'retry' | 'start' }>,
  coordinator: string,
  start: () => Promise<StartOutcome>,
): Begin {
  switch (decision.action) {
    case 'follow':
      return { follow: decision.at };
    case 'retry':
      return { retry: { node: coordinator, run: decision.run } };
    case 'start':
      return { start };
  }
}

/**
 * The planned change of following a run of the change: adopting it on the coordinator, or following it where
 * another member coordinates it. `note` ends the summary (who accepts on their own).
 */
export function followChange(
  at: NodeRun,
  coordinator: string,
  name: Namer,
  details: Record<string, JsonValue> = {},
  note = '',
): Change {
  const { node, run } = at;
  const change = changeOf(run, name);
  const accept = `accept its invitations on the nodes this target controls`;
  return {
    action: 'wait',
    summary:
      node === coordinator
        ? `adopt ${describeRun(run)} on ${node} and wait for it (${change}); ${accept}${note}`
        : `follow ${describeRun(run)} on ${node} (${change}): the same change, coordinated there; ${accept} and wait for it${note}`,
    details: { ...details, node, instance: run.instance_name },
  };
}

/**
 * The planned change of a start that another operator makes: its coordinator is not controlled here, so this
 * target waits for that operator's run and follows it (accepting on the nodes it controls).
 */
export function awaitedStart(start: Change, coordinator: string): Change {
  return {
    action: 'wait',
    summary: `wait for the operator of ${coordinator} (not controlled here) to ${start.summary}; then follow that run: accept its invitations on the nodes this target controls and wait for it`,
    ...(start.details !== undefined ? { details: start.details } : {}),
  };
}

/** The planned change of retrying a failed run from its failed step (only ever offered when retrySafe). */
export function retryChange(
  run: WorkflowRun,
  coordinator: string,
  details: Record<string, JsonValue>,
): Change {
  return {
    action: 'start',
    summary: `retry ${describeRun(run)} on ${coordinator} from its failed step (a coordinator failure is safe to retry)`,
    details: { ...details, instance: run.instance_name },
  };
}
