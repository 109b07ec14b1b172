/**
 * dpm.workflow — an operator's action on one workflow run, with the operators' guards (dpm-api.md §6, §7.3):
 * `wait` for it to finish; `cancel` only a coordinator run that is still running (a declined run still idles in
 * its gate and is cancelled too); `retry` only a failed coordinator run whose own work failed; `dismiss` only a
 * finished run. Each is idempotent: a run already cancelled, dismissed or retried is in sync. The kinds that make a
 * change (onboard-party, kick, …) see their own runs through with the lifecycle this kind shares with them
 * (workflow-lifecycle.ts); this one acts on a run by name, whoever started it.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { WORKFLOW_KINDS, type WorkflowRun } from '../../clients/dpm-wire.js';
import { ServiceError, StepError } from '../../errors.js';
import {
  defineStep,
  type Change,
  type ItemContext,
  type Outputs,
  type StaticFinding,
  type StepContext,
} from '../../engine/step.js';
import type { Target } from '../../playbook/target.js';
import {
  Findings,
  declinedBy,
  durationMs,
  enforceChecks,
  failedRunError,
  nodeNameSchema,
  refused,
  resolveParty,
  retrySafe,
  timeoutSchema,
  type Namer,
} from './party-common.js';
import { retryRun } from './workflow-lifecycle.js';
import { describeRun, namerOf } from './workflow-runs.js';
import { waitForRun } from './workflow-waits.js';

const DEFAULT_TIMEOUT = '15m';

const withSchema = {
  type: 'object',
  properties: {
    node: nodeNameSchema('The node that holds the run (for cancel and retry: its coordinator).'),
    action: {
      enum: ['wait', 'cancel', 'retry', 'dismiss'],
      description:
        '`wait` until it finishes (fails if it fails); `cancel` a coordinator run in progress (or a declined one still registered); `retry` a failed coordinator run, only when its own work failed ("Coordinator workflow failed: …"), then wait; `dismiss` a finished run (it leaves GET /workflows).',
    },
    instance: {
      type: 'string',
      minLength: 1,
      description:
        'The run’s instance name (e.g. `alpha-creation`). Or give `kind` and `prefix`/`party` to pick the newest coordinator run.',
    },
    kind: {
      enum: WORKFLOW_KINDS,
      description: 'With `prefix` or `party`: the kind of the newest coordinator run to act on.',
    },
    prefix: {
      type: 'string',
      minLength: 1,
      description: 'With `kind`: the party prefix of the run (onboarding) or of its party.',
    },
    party: {
      type: 'string',
      minLength: 1,
      description:
        'With `kind`: the party (id or prefix) of the run (kick, add-party, change-threshold, contracts).',
    },
    timeout: timeoutSchema(DEFAULT_TIMEOUT, 'the run to finish (wait, retry)'),
  },
  required: ['node', 'action'],
  oneOf: [
    {
      required: ['instance'],
      not: { anyOf: [{ required: ['kind'] }, { required: ['prefix'] }, { required: ['party'] }] },
    },
    {
      required: ['kind'],
      not: { required: ['instance'] },
      oneOf: [{ required: ['prefix'] }, { required: ['party'] }],
    },
  ],
  additionalProperties: false,
} as const;

type With = FromSchema<typeof withSchema>;

interface Observed {
  /** what the step looked for, in words */
  wanted: string;
  run: WorkflowRun | undefined;
  names: Record<string, string>;
}

type Decision =
  | { action: 'in-sync'; outputs: Outputs }
  | { action: 'wait'; run: WorkflowRun }
  | { action: 'cancel'; run: WorkflowRun }
  | { action: 'retry'; run: WorkflowRun }
  | { action: 'dismiss'; run: WorkflowRun };

function check(w: With, target: Target | undefined): StaticFinding[] {
  const f = new Findings(target);
  if (f.node('/node', w.node) && w.action !== 'wait')
    f.controlled('/node', w.node, `${w.action} writes to it`);
  return f.list;
}

async function observe(ctx: StepContext, w: With): Promise<Observed> {
  enforceChecks(ctx, w, check);
  const { runs } = await ctx.clients.dpm(w.node).workflows({ signal: ctx.signal });
  const ids = new Set<string>();
  for (const r of runs)
    for (const p of [...r.expected_peers, ...(r.error ? [/Peer (\S+)/.exec(r.error)?.[1] ?? ''] : [])])
      ids.add(p);
  const names = Object.fromEntries([...ids].filter((p) => p !== '').map((p) => [p, namerOf(ctx)(p)]));
  if (w.instance !== undefined) {
    // a coordinator row wins over a peer row of the same name (peer rows are prefixed `peer-…`)
    const run =
      runs.find((r) => r.instance_name === w.instance && r.role === 'Coordinator') ??
      runs.find((r) => r.instance_name === w.instance);
    if (!run && (w.action === 'cancel' || w.action === 'dismiss'))
      ctx.log(
        'warn',
        `no run ${w.instance} on ${w.node}: nothing to ${w.action} (dismissed already, or the name is wrong)`,
      );
    return { wanted: `run ${w.instance} on ${w.node}`, run, names };
  }
  const party = w.party === undefined ? undefined : await resolveParty(ctx, w.node, w.party);
  const run = runs
    .filter(
      (r) =>
        r.role === 'Coordinator' &&
        r.kind === w.kind &&
        (w.prefix === undefined || r.prefix === w.prefix) &&
        (party === undefined || r.dec_party_id === party),
    )
    .sort((a, b) => b.created_at - a.created_at)[0];
  return {
    wanted: `the newest ${w.kind ?? ''} run ${w.prefix ? `of prefix ${w.prefix}` : `of party ${party ?? ''}`} on ${w.node}`,
    run,
    names,
  };
}

function outputsOf(run: WorkflowRun | undefined, status?: string): Outputs {
  return { instance: run?.instance_name ?? null, status: status ?? run?.status ?? 'absent' };
}

function decide(w: With, state: Observed): Decision {
  const name: Namer = (p) => state.names[p] ?? p;
  const run = state.run;
  if (!run) {
    // dismissed runs leave GET /workflows: gone is what cancel (then dismiss) and dismiss leave behind
    if (w.action === 'dismiss' || w.action === 'cancel')
      return { action: 'in-sync', outputs: outputsOf(undefined) };
    throw new StepError(`no ${state.wanted} (GET /workflows lists only runs not dismissed)`, {
      hint: `check the node, the instance name, kind and prefix/party; GET /workflows on ${w.node} lists its runs`,
    });
  }
  const where = `${describeRun(run)} on ${w.node}`;
  switch (w.action) {
    case 'wait':
      if (run.status === 'completed') return { action: 'in-sync', outputs: outputsOf(run) };
      if (run.status === 'inprogress') return { action: 'wait', run };
      if (run.status === 'failed') throw failedRunError(name, w.node, run);
      throw new StepError(`${where}: it was cancelled`, {
        hint: 'start it again with the step that started it',
      });
    case 'cancel':
      if (run.role !== 'Coordinator')
        throw new StepError(`${where} is a peer row: a run is cancelled on its coordinator`, {
          hint: `cancel ${run.coordinator_instance ?? 'it'} on the coordinator (${run.coordinator_name ?? 'the node that started it'}); its peers follow`,
        });
      if (run.status === 'inprogress' || declinedBy(run) !== undefined) return { action: 'cancel', run };
      if (run.status === 'completed')
        throw new StepError(`${where}: it completed, there is nothing to cancel`, {
          hint: 'undo its effect with the step that reverses it (e.g. dpm.kick after an add-party)',
        });
      return { action: 'in-sync', outputs: outputsOf(run) };
    case 'retry':
      if (run.role !== 'Coordinator')
        throw new StepError(`${where} is a peer row: only the coordinator retries a run`, {
          hint: `retry ${run.coordinator_instance ?? 'it'} on its coordinator; the peer rows follow by themselves`,
        });
      if (run.status === 'completed') return { action: 'in-sync', outputs: outputsOf(run) };
      if (run.status === 'inprogress') return { action: 'wait', run };
      if (run.status === 'cancelled')
        throw new StepError(`${where}: a cancelled run cannot be retried`, {
          hint: 'start it again with the step that started it',
        });
      if (retrySafe(run)) return { action: 'retry', run };
      throw failedRunError(name, w.node, run);
    case 'dismiss':
      if (run.status === 'inprogress')
        throw new StepError(`${where}: a run in progress is not dismissed`, {
          hint: `cancel it first (action: cancel), or wait for it`,
        });
      return { action: 'dismiss', run };
  }
}

function plan(w: With, state: Observed): { changes: Change[]; outputs?: Outputs } {
  const decision = decide(w, state);
  if (decision.action === 'in-sync') return { changes: [], outputs: decision.outputs };
  const run = decision.run;
  const details = { node: w.node, instance: run.instance_name };
  const where = `${describeRun(run)} on ${w.node}`;
  const change: Change =
    decision.action === 'wait'
      ? { action: 'wait', summary: `wait for ${where}`, details }
      : decision.action === 'cancel'
        ? {
            action: 'delete',
            summary: `cancel ${where}${run.status === 'failed' ? ' (declined, still registered)' : ''}`,
            details,
          }
        : decision.action === 'retry'
          ? {
              action: 'start',
              summary: `retry ${where} from step ${run.current_step}, then wait for it`,
              details,
            }
          : { action: 'delete', summary: `dismiss ${where}`, details };
  return { changes: [change] };
}

async function apply(ctx: ItemContext, w: With, state: Observed): Promise<Outputs> {
  const decision = decide(w, state);
  if (decision.action === 'in-sync') return decision.outputs;
  const { run } = decision;
  const instance = run.instance_name;
  const dpm = ctx.clients.dpm(w.node);
  const timeout = durationMs(w.timeout, DEFAULT_TIMEOUT);
  switch (decision.action) {
    case 'wait':
      return outputsOf(await waitForRun(ctx, w.node, instance, timeout));
    case 'cancel':
      await ctx.record({ action: 'cancel-workflow', node: w.node, instance });
      try {
        await dpm.cancelWorkflow(instance, { signal: ctx.signal });
      } catch (error) {
        // not registered any more: it finished or failed meanwhile, which is what the next observation shows
        if (!(
          error instanceof ServiceError &&
          error.status === 409 &&
          /No in-flight workflow run named/.test(error.serviceMessage ?? '')
        ))
          throw refused(`${w.node} refused to cancel ${instance}`, error);
        ctx.log('info', `${instance} was no longer in flight on ${w.node}`);
      }
      return outputsOf(await current(ctx, w.node, instance));
    case 'retry':
      await retryRun(ctx, { node: w.node, run });
      return outputsOf(await waitForRun(ctx, w.node, instance, timeout));
    case 'dismiss':
      await ctx.record({ action: 'dismiss-workflow', node: w.node, instance });
      try {
        await dpm.dismissWorkflow(instance, { signal: ctx.signal });
      } catch (error) {
        throw refused(`${w.node} refused to dismiss ${instance}`, error);
      }
      return outputsOf(run, 'dismissed');
  }
}

async function current(ctx: StepContext, node: string, instance: string): Promise<WorkflowRun | undefined> {
  const { runs } = await ctx.clients.dpm(node).workflows({ signal: ctx.signal });
  return runs.find((r) => r.instance_name === instance);
}

export const dpmWorkflow = defineStep<With, Observed>({
  kind: 'dpm.workflow',
  summary: 'Wait for, cancel, retry (only when safe) or dismiss one workflow run.',
  withSchema,
  outputs: {
    instance: 'the run’s instance name (null when no run was found to cancel or dismiss)',
    status: 'its status after the action: completed, cancelled, failed, dismissed, or absent',
  },
  needsTarget: true,
  check,
  observe,
  plan,
  apply: (ctx, w, _item, _plan, state) => apply(ctx, w, state),
  // every action is settled by reading the run again
  reconcile: () => Promise.resolve({ status: 'not-done', note: 'the run is observed again' }),
});
