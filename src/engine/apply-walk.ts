/**
 * The apply walk (`ledgerbook run`): resumes the last run when it did not finish (unless --fresh), journals each
 * step, item and intent, reconciles what an earlier attempt left before an item is planned again, applies the
 * items with changes through the item executor (retries, pacing, timeouts), holds them to a saved plan when it
 * applies one, and finishes each step (the kind's `finish`, or its combined outputs) with a checkpoint.
 */
import { hostname } from 'node:os';
import { AmbiguousOutcomeError, EXIT } from '../errors.js';
import type { StepSpec } from '../playbook/model.js';
import type { EngineResult } from './engine-options.js';
import { ItemExecutor, type ItemOutcome, type ItemUnit, type StepExecution } from './item-executor.js';
import { lastRun } from './journal-state.js';
import type { Lock } from './lock.js';
import type { RunContext } from './run-context.js';
import type { Intent, ItemPlan, Outputs, StepContext } from '../steps/contract.js';
import { Walk, type ListedStep } from './walk.js';

/** The outputs of an item whose kind took them (`onItem`): one shared empty object, not 100,000. */
const NO_OUTPUTS: Outputs = Object.freeze({});

export class ApplyWalk extends Walk {
  /** steps that changed something (a saved plan holds items strictly until one has) */
  private changedSteps = 0;
  /** per step, the context its kind's `onItem` gets */
  private readonly reportContexts = new WeakMap<StepExecution, StepContext>();

  constructor(
    rc: RunContext,
    /** the run's lock: whose lock it replaced, and how long taking it waited for that run */
    private readonly lock: Pick<Lock, 'replaced' | 'waitedMs'> | undefined,
    /** the playbook as every checkout names it, recorded in the run record */
    private readonly playbookPath: string,
  ) {
    super(rc);
  }

  /** Resume the last run when it did not finish (unless --fresh); otherwise start a new one. */
  protected override begin(): void {
    const { rc } = this;
    const { o } = rc;
    const last = lastRun(rc.journal.records);
    if (last !== undefined && last.status !== 'succeeded' && !o.fresh) {
      this.resumed = last;
      rc.runId = last.run;
    } else super.begin();
    // A resumed run gets a `run` record too: it says who carries it on now and clears its earlier end.
    rc.journal.append({
      t: 'run',
      v: 1,
      run: rc.runId,
      at: rc.isoNow(),
      playbook: o.playbook.name,
      file: o.playbook.file,
      path: this.playbookPath,
      target: o.targetName,
      digest: o.playbook.digest,
      inputsDigest: rc.inputsDigest,
      pid: process.pid,
      host: hostname(),
      user: o.actor,
      mode: 'run',
      fresh: o.fresh,
    });
  }

  protected override announce(): void {
    const { rc } = this;
    const { o } = rc;
    const replaced = this.lock?.replaced;
    if (replaced) {
      const waited = this.lock?.waitedMs ?? 0;
      rc.log(
        'warn',
        waited > 0
          ? `the run of pid ${replaced.pid} on ${replaced.host} (since ${replaced.at}) lost its lock while it ran; waited ${(waited / 1000).toFixed(1)} s for it to finish the commands it had in flight; taking over`
          : `the run of pid ${replaced.pid} (since ${replaced.at}) died without releasing its lock; taking over`,
      );
    }
    if (o.savedPlan) {
      const { plan, file } = o.savedPlan.guard;
      rc.log('info', `the saved plan ${file} still holds (${plan.changes} planned changes): applying it`);
    }
    if (this.resumed && this.resumed.digest !== o.playbook.digest) {
      rc.log(
        'warn',
        'the playbook changed since this run started: finished steps stay done, changed steps run again',
      );
    }
  }

  protected succeeded(): EngineResult {
    return { run: this.rc.runId, status: 'succeeded', exitCode: EXIT.OK, changes: this.rc.changes };
  }

  protected async ended(result: EngineResult): Promise<void> {
    const { rc } = this;
    await rc.journal.appendDurable({
      t: 'end',
      run: rc.runId,
      at: rc.isoNow(),
      status: result.status === 'planned' ? 'succeeded' : result.status,
      exitCode: result.exitCode,
      ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
    });
  }

  protected skipped(spec: StepSpec): Promise<void> {
    return this.checkpoint(spec, 'skipped', {}, '');
  }

  protected override stepStarted(spec: StepSpec, withDigest: string, total: number): void {
    const { rc } = this;
    if (rc.o.savedPlan?.guard.knownAfterApply(spec.id))
      rc.log('info', 'known after apply in the saved plan: planned now', spec.id);
    rc.journal.append({ t: 'step', run: rc.runId, step: spec.id, at: rc.isoNow(), withDigest, items: total });
  }

  protected async stepEnded({ execution, groups, results, withDigest, done }: ListedStep): Promise<void> {
    const { spec } = execution;
    const stepChanges = results.reduce((n, r) => n + r.changes, 0);
    const outputs = await this.kindOutputs(execution, groups, results, 'finish');
    const status = stepChanges > 0 || results.some((r) => r.status === 'reconciled') ? 'applied' : 'in-sync';
    if (status === 'applied') this.changedSteps++;
    await this.checkpoint(spec, status, outputs, withDigest);
    done(status, stepChanges, outputs);
  }

  private async checkpoint(
    spec: StepSpec,
    status: 'applied' | 'in-sync' | 'skipped',
    outputs: Outputs,
    withDigest: string,
  ): Promise<void> {
    const { rc } = this;
    await rc.journal.appendDurable({
      t: 'step-done',
      run: rc.runId,
      step: spec.id,
      at: rc.isoNow(),
      status,
      outputs,
      withDigest,
    });
  }

  // ---------------------------------------------------------------------------------------------------------
  // Items

  /** An item with intents pending in the journal: did they take effect? */
  async beforePlan(unit: ItemUnit): Promise<ItemOutcome | undefined> {
    const { rc } = this;
    const { step, group, item } = unit;
    const { spec, kind } = step;
    const intents = step.pending.get(item.key);
    if (!intents || intents.length === 0) return undefined;
    const w = group.with;
    const ctx = rc.itemContext(spec, step.previous, w, item, 1, []);
    const verdict = await rc.retry(spec, item.key, () => kind.reconcile(ctx, w, item, intents));
    if (verdict.status === 'ambiguous') {
      throw new AmbiguousOutcomeError(
        `step '${spec.id}'${item.key ? ` item '${item.key}'` : ''}: the outcome of an earlier attempt cannot be told`,
        verdict.seen,
        verdict.hint,
      );
    }
    if (verdict.status === 'done') {
      const outputs = verdict.outputs ?? {};
      this.executor.done(unit, 'reconciled', outputs);
      return { key: item.key, outputs, changes: 0, status: 'reconciled' };
    }
    if (verdict.note)
      rc.log('info', `${item.key || spec.id}: not done before, doing it now (${verdict.note})`, spec.id);
    return undefined;
  }

  /** Applying a saved plan: each item is held to it (the saved plan holds masked changes). */
  onPlan({ step, item }: ItemUnit, plan: ItemPlan): void {
    const { o } = this.rc;
    if (!o.savedPlan) return;
    const changes = o.masker.maskDeep(plan.changes);
    const note = o.savedPlan.guard.checkItem(step.spec.id, item.key, changes, this.changedSteps > 0);
    if (note) this.rc.log('info', note, step.spec.id);
  }

  async withChanges(
    unit: ItemUnit,
    plan: ItemPlan,
    state: unknown,
    recorded: Intent[],
  ): Promise<ItemOutcome> {
    const { rc } = this;
    const { step, item } = unit;
    let outputs: Outputs;
    /** the intents of the attempt that succeeded */
    const sent: Intent[] = [];
    try {
      outputs = await this.executor.applyItem(unit, plan, state, recorded, sent);
    } catch (error) {
      // A definite failure settles the item's intents; an ambiguous one, a pause, an interruption or a bug
      // leaves them for reconcile next run.
      if (ItemExecutor.settlesIntents(error, rc.o.signal)) {
        rc.journal.append({
          t: 'failed',
          run: rc.runId,
          step: step.spec.id,
          item: item.key,
          at: rc.isoNow(),
          error: { code: error.code, message: error.message },
        });
      }
      throw error;
    }
    // Only what the item sent counts as applied (a step records an intent before each side effect): an item that
    // sent nothing — it waited for a run another operator started, which finished without it — is in sync now.
    if (sent.length === 0 && recorded.length === 0) {
      this.executor.done(unit, 'in-sync', outputs);
      return { key: item.key, outputs, changes: 0, status: 'in-sync' };
    }
    rc.changes += plan.changes.length;
    this.executor.done(unit, 'applied', outputs);
    return { key: item.key, outputs, changes: plan.changes.length, status: 'applied' };
  }

  settled({ step, item }: ItemUnit, status: 'applied' | 'in-sync' | 'reconciled', outputs: Outputs): void {
    const { rc } = this;
    rc.journal.append({
      t: 'done',
      run: rc.runId,
      step: step.spec.id,
      item: item.key,
      at: rc.isoNow(),
      status,
      outputs,
    });
  }

  /** A kind that reports item by item (`onItem`) takes each item's outputs: the step's results do not keep them. */
  finished({ step, group, item }: ItemUnit, outcome: ItemOutcome): void {
    const { kind } = step;
    if (!kind.onItem || outcome.status === 'planned') return;
    let ctx = this.reportContexts.get(step);
    if (ctx === undefined) {
      ctx = this.executor.stepContext(step, group.with);
      this.reportContexts.set(step, ctx);
    }
    kind.onItem(ctx, group.with, item, {
      key: outcome.key,
      outputs: outcome.outputs,
      status: outcome.status,
    });
    outcome.outputs = NO_OUTPUTS;
  }
}
