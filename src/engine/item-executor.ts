/**
 * The item executor both walks share: a step's items through the step's pool (concurrency, a stop lets what is
 * in flight finish, a permanent failure tells the waiting siblings), each item skipped when an earlier invocation
 * finished it, observed once per group (with the step's retry policy), planned, and handed to the walk when it has
 * changes. The apply walk applies them through `applyItem`: the attempts with the step's retry policy, pacing and
 * timeout, the intents of a failed attempt reconciled before the next.
 */
import { AmbiguousOutcomeError, LedgerbookError, PausedError, StepError } from '../errors.js';
import type { StepSpec } from '../playbook/model.js';
import { raceAbort, timeoutSignal } from './attempt-signal.js';
import type { StepState } from './journal-state.js';
import type { Pacer } from './pacer.js';
import { pool } from '../pool.js';
import type { Progress } from './progress.js';
import { pressureDelay, retryDelay, shouldRetry } from './retry.js';
import type { RunContext } from './run-context.js';
import { describeIntent, isAmbiguous } from './run-text.js';
import { itemArgs } from './state-command.js';
import { elementPrevious, type Group } from './step-with.js';
import type { AnyStepKind, Change, Intent, Item, ItemPlan, Outputs, StepContext } from '../steps/contract.js';

/** One execution of a step, as its items share it. */
export interface StepExecution {
  spec: StepSpec;
  kind: AnyStepKind;
  previous: { outputs: Outputs } | undefined;
  progress: Progress;
  pacer: Pacer;
  /** items an earlier invocation of this run finished with the same `with` */
  doneItems: StepState['done'];
  /** intents the journal holds for items after their last `done` */
  pending: StepState['pending'];
  /** the observed state of each group, by group index, as it is observed */
  observed: Map<number, Promise<unknown>>;
}

/** One item of a step execution, with its group. */
export interface ItemUnit {
  step: StepExecution;
  group: Group;
  /** the group's index in the step: its observed state is kept by it */
  groupIndex: number;
  item: Item;
}

export interface ItemOutcome {
  key: string;
  outputs: Outputs;
  changes: number;
  status: 'applied' | 'in-sync' | 'reconciled' | 'skipped' | 'planned';
  /** plan mode: the changes it would make */
  planned?: Change[];
  /** plan mode: the outputs it says are known before it applies */
  known?: Outputs;
}

/** What a walk does with an item where the two differ. */
export interface ItemWalk {
  /**
   * Before an item is planned: what an earlier attempt left (the apply walk reconciles the intents pending in the
   * journal); an outcome settles the item
   */
  beforePlan(unit: ItemUnit): Promise<ItemOutcome | undefined>;
  /** an item's plan as observed now (the apply walk holds it to a saved plan) */
  onPlan(unit: ItemUnit, plan: ItemPlan): void;
  /** an item with changes: planned (the plan walk) or applied (the apply walk) */
  withChanges(unit: ItemUnit, plan: ItemPlan, state: unknown, recorded: Intent[]): Promise<ItemOutcome>;
  /** an item settled in this invocation: the apply walk journals it */
  settled(unit: ItemUnit, status: 'applied' | 'in-sync' | 'reconciled', outputs: Outputs): void;
  /** each item as it finishes (the apply walk gives it to a kind's `onItem`) */
  finished(unit: ItemUnit, outcome: ItemOutcome): void;
}

/** Retries of one item after backpressure: beyond this the error counts like any other. */
const MAX_PRESSURE_RETRIES = 100;

export class ItemExecutor {
  constructor(
    private readonly rc: RunContext,
    private readonly walk: ItemWalk,
  ) {}

  /** Every item of the step's groups, through the step's pool. */
  run(step: StepExecution, groups: readonly Group[]): Promise<ItemOutcome[]> {
    const { rc } = this;
    const { spec, kind } = step;
    const units: ItemUnit[] = [];
    groups.forEach((group, groupIndex) => {
      for (const item of group.items) units.push({ step, group, groupIndex, item });
    });
    const concurrency = spec.concurrency ?? kind.concurrency ?? 1;
    const siblings = new AbortController();
    rc.siblingFailed = siblings.signal;
    const onFailure = (error: unknown): void => {
      if (error instanceof LedgerbookError && error.retryability === 'permanent' && !siblings.signal.aborted)
        siblings.abort(
          new StepError(`step '${spec.id}': stopped waiting, another item failed: ${error.message}`),
        );
    };
    // after a stop, no new item starts; the ones in flight finish
    const starting = AbortSignal.any([rc.o.signal, rc.stopping]);
    return pool(units, concurrency, starting, onFailure, async (unit) => {
      const label = unit.item.key === '' ? spec.id : `${spec.id} ${unit.item.key}`;
      rc.inFlight.add(label);
      try {
        const outcome = await this.item(unit);
        step.progress.tick(outcome.status);
        this.walk.finished(unit, outcome);
        return outcome;
      } finally {
        rc.inFlight.delete(label);
      }
    });
  }

  /** The group's observed state: observed once per group, shared by its items. */
  private observe({ step, group, groupIndex }: ItemUnit): Promise<unknown> {
    const known = step.observed.get(groupIndex);
    if (known) return known;
    const { spec, kind } = step;
    // a for_each group is one element: it sees that element as `item`, and its own part of earlier outputs
    const element = spec.forEach !== undefined ? group.items[0] : undefined;
    const previous = element ? elementPrevious(step.previous, element.key) : step.previous;
    const ctx = this.rc.stepContext(spec, previous, group.with, this.rc.o.signal, element);
    const state = this.rc.retry(spec, '', () => kind.observe(ctx, group.with));
    step.observed.set(groupIndex, state);
    return state;
  }

  private async item(unit: ItemUnit): Promise<ItemOutcome> {
    // the intents the journal holds for this item after its last `done`: an earlier run's, then this run's
    const recorded: Intent[] = [...(unit.step.pending.get(unit.item.key) ?? [])];
    try {
      return await this.settle(unit, recorded);
    } catch (error) {
      throw this.forOperator(error, unit, recorded);
    }
  }

  private async settle(unit: ItemUnit, recorded: Intent[]): Promise<ItemOutcome> {
    const { rc } = this;
    const { step, group, item } = unit;
    const { spec, kind } = step;
    const finished = step.doneItems.get(item.key);
    if (finished) {
      this.itemDoneEvent(spec, item, 'skipped', finished.outputs);
      return { key: item.key, outputs: finished.outputs, changes: 0, status: 'skipped' };
    }
    const settled = await this.walk.beforePlan(unit);
    if (settled) return settled;
    const state = await this.observe(unit);
    const plan = kind.plan(group.with, state, item);
    this.walk.onPlan(unit, plan);
    if (plan.changes.length === 0) {
      const outputs = plan.outputs ?? {};
      this.done(unit, 'in-sync', outputs);
      return { key: item.key, outputs, changes: 0, status: 'in-sync' };
    }
    rc.o.events.emit({
      type: 'step.plan',
      step: spec.id,
      inSync: false,
      changes: plan.changes.map((c) => ({
        item: item.key,
        action: c.action,
        summary: c.summary,
        ...(c.details ? { details: c.details } : {}),
      })),
    });
    return this.walk.withChanges(unit, plan, state, recorded);
  }

  /** An item settled in this invocation: journalled by the walk, and told to the reporters. */
  done(unit: ItemUnit, status: 'applied' | 'in-sync' | 'reconciled', outputs: Outputs): void {
    this.walk.settled(unit, status, outputs);
    this.itemDoneEvent(unit.step.spec, unit.item, status, outputs);
  }

  private itemDoneEvent(
    spec: StepSpec,
    item: Item,
    status: 'applied' | 'in-sync' | 'reconciled' | 'skipped',
    outputs: Outputs,
  ): void {
    this.rc.o.events.emit({
      type: 'item.done',
      step: spec.id,
      item: item.key,
      status,
      ...outputsOf(outputs),
    });
  }

  /**
   * An ambiguous outcome as the operator gets it (exit 4): what was recorded before the side effect, and the
   * commands that record their decision about this very item.
   */
  private forOperator(error: unknown, { step, item }: ItemUnit, recorded: readonly Intent[]): unknown {
    if (!(error instanceof LedgerbookError) || !isAmbiguous(error) || recorded.length === 0) return error;
    const resolve = (decision: '--done' | '--redo'): string =>
      this.rc.command('resolve', [...itemArgs(step.spec.id, item.key), decision]);
    const seen = error instanceof AmbiguousOutcomeError ? error.seen : error.message;
    return new AmbiguousOutcomeError(
      error.message,
      `${seen}; recorded before the side effect: ${recorded.map(describeIntent).join('; ')}`,
      `${error.hint ? `${error.hint}; then` : 'check whether it took effect, then'} record your decision: \`${resolve('--done')}\` if it took effect, or \`${resolve('--redo')}\` to have the next run do it again`,
      error,
    );
  }

  /**
   * Apply one item with the step's retry policy; intents of a failed attempt are reconciled before the next. Each
   * attempt takes a place in the step's pacer; backpressure from a service narrows the pacer and is retried
   * without using up the policy's attempts (up to MAX_PRESSURE_RETRIES), after the wait the service asked for.
   */
  async applyItem(
    { step, group, item }: ItemUnit,
    firstPlan: ItemPlan,
    firstState: unknown,
    /** receives the intents of every failed attempt: they stay in the journal until settled */
    recorded: Intent[],
    /** receives the intents of the attempt that succeeded */
    sent: Intent[],
  ): Promise<Outputs> {
    const { rc } = this;
    const { o } = rc;
    const { spec, kind, previous, pacer } = step;
    const w = group.with;
    let plan = firstPlan;
    let state = firstState;
    let counted = 1;
    let pressureRetries = 0;
    for (let attempt = 1; ; attempt++) {
      const intents: Intent[] = [];
      await pacer.acquire(o.signal);
      const startedAt = o.clock.now();
      const attemptSignal = timeoutSignal(o.signal, spec, item);
      const ctx = rc.itemContext(spec, previous, w, item, attempt, intents, attemptSignal.signal, recorded);
      let failure: unknown;
      try {
        const outputs = await raceAbort(kind.apply(ctx, w, item, plan, state), attemptSignal.signal);
        pacer.success();
        sent.push(...intents);
        return outputs;
      } catch (error) {
        recorded.push(...intents);
        failure = error;
      } finally {
        attemptSignal.clear();
        pacer.release();
      }
      const pressure = failure instanceof LedgerbookError ? failure.backpressure : undefined;
      if (pressure) pacer.pressure(pressure.retryAfterMs, startedAt);
      const pressed = pressure !== undefined && pressureRetries < MAX_PRESSURE_RETRIES;
      if (o.signal.aborted || !(pressed || shouldRetry(failure, counted, spec.retry))) throw failure;
      // stopping: no new attempt; its intents are reconciled by the next run
      if (rc.stopping.aborted) throw rc.stopping.reason;
      let delayMs: number;
      if (pressed) {
        pressureRetries++;
        delayMs = pressureDelay(spec.retry, pressureRetries, pressure.retryAfterMs, rc.random);
      } else {
        delayMs = retryDelay(spec.retry, counted, rc.random);
        counted++;
      }
      rc.retryEvent(spec, item.key, attempt, delayMs, failure);
      // a wait the service asked for also holds the step's other items back (the pacer); the jitter on top of it
      // and any other delay are this item's own
      await o.clock.sleep(delayMs, o.signal);
      const retryCtx = rc.itemContext(spec, previous, w, item, attempt + 1, []);
      if (intents.length > 0) {
        const verdict = await kind.reconcile(retryCtx, w, item, intents);
        if (verdict.status === 'done') return verdict.outputs ?? {};
        if (verdict.status === 'ambiguous') {
          throw new AmbiguousOutcomeError(
            `step '${spec.id}': the outcome of attempt ${attempt} cannot be told`,
            verdict.seen,
            verdict.hint,
          );
        }
      }
      state = await kind.observe(retryCtx, w);
      plan = kind.plan(w, state, item);
      if (plan.changes.length === 0) return plan.outputs ?? {};
    }
  }

  /** Whether an apply error leaves the item's intents settled (a definite failure) rather than for reconcile. */
  static settlesIntents(error: unknown, signal: AbortSignal): error is LedgerbookError {
    // an ambiguous one, a pause (a wait that outlived this run: the side effect is still under way), an
    // interruption or a bug leaves them for reconcile next run
    return (
      !signal.aborted &&
      error instanceof LedgerbookError &&
      error.retryability !== 'ambiguous' &&
      !(error instanceof PausedError)
    );
  }

  /** A context for step-level calls of the kind (onItem, finish). */
  stepContext(step: StepExecution, w: Record<string, unknown>): StepContext {
    return this.rc.stepContext(step.spec, step.previous, w);
  }
}

/** An item's outputs for its `item.done` event (what a distribution reports per recipient), when it has any. */
export function outputsOf(outputs: Outputs): { outputs?: Outputs } {
  return Object.keys(outputs).length > 0 ? { outputs } : {};
}
