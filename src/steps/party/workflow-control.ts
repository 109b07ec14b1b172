/**
 * dpm.workflow — an operator's action on one workflow run, with the operators' guards (dpm-api.md §6, §7.3):
 * `wait` for it to finish; `cancel` only a coordinator run that is still running (a declined run still idles in
 * its gate and is cancelled too); `retry` only a failed coordinator run whose own work failed; `dismiss` only a
 * finished run. Each is idempotent: a run already cancelled, dismissed or retried is in sync. The kinds that make a
 * change (onboard-party, kick, …) see their own runs through with the lifecycle this kind shares with them
 * (workflow-lifecycle.ts); this one acts on a run by name, whoever started it.
 */
import { type WorkflowRun } from '../../clients/dpm-wire.js';
import { defineStep, type Change, type ItemContext, type Outputs, type StepContext } from '../contract.js';
import { ServiceError, StepError } from '../../errors.js';
import {
  declinedBy,
  durationMs,
  enforceChecks,
  failedRunError,
  refused,
  resolveParty,
  retrySafe,
  type Namer,
} from './party-common.js';
import { DEFAULT_TIMEOUT, check, dpmWorkflowDeclaration, type With } from './workflow-control.declaration.js';
import { retryRun } from './workflow-lifecycle.js';
import { describeRun, namerOf } from './workflow-runs.js';
import { waitForRun } from './workflow-waits.js';

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
  ...dpmWorkflowDeclaration,
  observe,
  plan,
  apply: (ctx, w, _item, _plan, state) => apply(ctx, w, state),
  // every action is settled by reading the run again
  reconcile: () => Promise.resolve({ status: 'not-done', note: 'the run is observed again' }),
});
