/**
 * A walk over the playbook's steps, the part planning and applying share (the way Terraform's plan and apply walks
 * share their node types): the run's vars, the kinds' `verify` ahead of the first step, then per step its `if`,
 * its resolved `with` and items, its session, and its items through the item executor. What differs — a plan
 * records what it would change and stops at steps whose inputs are not known yet; an apply journals and finishes
 * each step — is the subclasses' (plan-walk.ts, apply-walk.ts).
 */
import { EXIT, LedgerbookError, PausedError, StateError, StepError, ValidationError } from '../errors.js';
import { evaluateCondition, resolveDeep } from '../playbook/expressions/index.js';
import type { Diagnostic } from '../diagnostics.js';
import type { StepSpec } from '../playbook/model.js';
import { positionedFinding } from '../playbook/resolved-check.js';
import { digestOf } from '../digest.js';
import { EXIT_INTERRUPTED, type EngineResult } from './engine-options.js';
import {
  ItemExecutor,
  type ItemOutcome,
  type ItemUnit,
  type ItemWalk,
  type StepExecution,
} from './item-executor.js';
import { lastFinishedStep, type RunState } from './journal-state.js';
import { LOST_LOCK_GRACE_MS } from './lock.js';
import { Pacer } from './pacer.js';
import { Progress } from './progress.js';
import type { RunContext } from './run-context.js';
import { errorInfo, isAmbiguous } from './run-text.js';
import { expand, itemsDigest, readsSteps, withItems, type Group } from './step-with.js';
import type { AnyStepKind, Intent, ItemPlan, ItemResult, Outputs, StepContext } from '../steps/contract.js';

export type StepStatus = 'applied' | 'in-sync' | 'skipped' | 'resumed' | 'planned';

/** A step of the walk once its items are listed: what the walk's end of the step needs. */
export interface ListedStep {
  execution: StepExecution;
  groups: Group[];
  results: ItemOutcome[];
  withDigest: string;
  /** tell the reporters the step ended, and make its outputs known to later steps */
  done: (status: StepStatus, changes: number, outputs: Outputs, items?: number) => void;
}

export abstract class Walk implements ItemWalk {
  protected readonly executor: ItemExecutor;
  /** the unfinished run this invocation resumes (the apply walk) */
  protected resumed: RunState | undefined;
  /** steps whose `verify` ran in this invocation */
  private readonly verified = new Set<string>();

  constructor(protected readonly rc: RunContext) {
    this.executor = new ItemExecutor(rc, this);
  }

  async execute(): Promise<EngineResult> {
    const { rc } = this;
    const { o } = rc;
    const started = o.clock.now();
    this.begin();
    o.events.emit({
      type: 'run.start',
      run: rc.runId,
      mode: o.mode,
      playbook: o.playbook.name,
      file: o.playbook.file,
      target: o.targetName,
      resumed: this.resumed !== undefined,
      steps: o.playbook.steps.map((s) => ({ id: s.id, kind: s.uses, name: s.name })),
    });
    this.announce();
    let result: EngineResult;
    const onStop = (): void => this.sayStopping();
    rc.stopping.addEventListener('abort', onStop, { once: true });
    try {
      this.resolveVars();
      await this.verifyAhead();
      for (const spec of o.playbook.steps) {
        if (o.signal.aborted) throw o.signal.reason;
        if (rc.stopping.aborted) throw rc.stopping.reason;
        await this.step(spec);
      }
      result = this.succeeded();
    } catch (error) {
      result = this.failure(error);
    } finally {
      rc.stopping.removeEventListener('abort', onStop);
    }
    await this.ended(result);
    o.events.emit({
      type: 'run.done',
      run: rc.runId,
      status: result.status,
      exitCode: result.exitCode,
      changes: rc.changes,
      durationMs: Math.round(o.clock.now() - started),
      ...(result.error ? { error: errorInfo(result.error) } : {}),
    });
    return result;
  }

  // ---------------------------------------------------------------------------------------------------------
  // What the walks do differently

  /** The run's id: a new one (the apply walk resumes an unfinished run, and journals it). */
  protected begin(): void {
    const stamp = new Date(this.rc.o.clock.now()).toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
    this.rc.runId = `${stamp}-${Math.floor(this.rc.random() * 0xffff)
      .toString(16)
      .padStart(4, '0')}`;
  }

  /** What the run says right after it starts. */
  protected announce(): void {}

  protected abstract succeeded(): EngineResult;

  /** After the last step, or the failure that ended the walk. */
  protected abstract ended(result: EngineResult): Promise<void>;

  /** Before a step's `if` and `with`: true when the walk settled the step already (a plan's known-after-apply). */
  protected beforeStep(_spec: StepSpec, _kind: AnyStepKind, _done: ListedStep['done']): Promise<boolean> {
    return Promise.resolve(false);
  }

  /** A step whose `if` is false. */
  protected abstract skipped(spec: StepSpec): Promise<void>;

  /** A step whose items are listed, before they are worked on. */
  protected stepStarted(_spec: StepSpec, _withDigest: string, _total: number): void {}

  /** A step whose items are all settled: its plan recorded, or its finish and checkpoint. */
  protected abstract stepEnded(step: ListedStep): Promise<void>;

  /**
   * What `values` refer to that is not known yet: none, but in a plan (plan-walk.ts) the outputs of a step that
   * will change first, and the secrets an untrusted plan was not given.
   */
  protected unknownDependencies(_values: readonly unknown[]): string[] {
    return [];
  }

  abstract beforePlan(unit: ItemUnit): Promise<ItemOutcome | undefined>;
  abstract onPlan(unit: ItemUnit, plan: ItemPlan): void;
  abstract withChanges(
    unit: ItemUnit,
    plan: ItemPlan,
    state: unknown,
    recorded: Intent[],
  ): Promise<ItemOutcome>;
  abstract settled(unit: ItemUnit, status: 'applied' | 'in-sync' | 'reconciled', outputs: Outputs): void;
  abstract finished(unit: ItemUnit, outcome: ItemOutcome): void;

  // ---------------------------------------------------------------------------------------------------------
  // The walk

  private resolveVars(): void {
    const { rc } = this;
    for (const [name, value] of Object.entries(rc.o.playbook.vars)) {
      if (this.unknownVar(name, value)) continue;
      try {
        rc.scope.vars[name] = resolveDeep(value, rc.scope);
      } catch (error) {
        if (!(error instanceof LedgerbookError)) throw error;
        throw new StepError(`vars.${name}: ${error.message}`, {
          hint: error.hint ?? 'fix the expression of this var, or the inputs it reads',
          cause: error,
        });
      }
    }
  }

  /** Whether a var reads what is not known yet (a plan's): it stays unresolved. */
  protected unknownVar(_name: string, _value: unknown): boolean {
    return false;
  }

  /**
   * Before the first step: the kinds' `verify` (read-only checks against the services) of every step whose `with`
   * reads nothing that a step computes, so that a recipient the network does not know refuses the run before the
   * first step sends anything. The other steps are verified when they start.
   */
  private async verifyAhead(): Promise<void> {
    const { rc } = this;
    const diagnostics: Diagnostic[] = [];
    for (const spec of rc.o.playbook.steps) {
      const kind = rc.o.registry.get(spec.uses);
      if (kind?.verify === undefined || spec.forEach !== undefined) continue;
      if (readsSteps([spec.with, spec.if])) continue;
      if (this.resumed?.steps.get(spec.id)?.finished) continue;
      if (spec.if !== undefined && !evaluateCondition(spec.if, rc.scope)) continue;
      const [group] = expand(rc, spec, kind);
      if (group !== undefined) diagnostics.push(...(await this.verifyStep(spec, kind, group.with)));
    }
    if (diagnostics.length > 0) throw new ValidationError('LB_INPUT_INVALID', diagnostics);
  }

  /** One step's `verify`, its findings positioned; the step is not verified again when it starts. */
  private async verifyStep(
    spec: StepSpec,
    kind: AnyStepKind,
    w: Record<string, unknown>,
  ): Promise<Diagnostic[]> {
    this.verified.add(spec.id);
    // verify runs before the step's session is open (ahead of the first step, for most)
    const ctx = { ...this.rc.stepContext(spec, undefined, w), session: undefined };
    const findings = (await kind.verify?.(ctx, w)) ?? [];
    return findings.map((finding) =>
      positionedFinding(this.rc.o.playbook, spec, finding, {
        rule: 'verify',
        advice: 'the services say this value cannot be used: fix it before anything is sent',
      }),
    );
  }

  /** One step: its `if`, its `with` and items, its session, its items, its end. */
  private async step(spec: StepSpec): Promise<void> {
    const { rc } = this;
    const { o } = rc;
    const kind = o.registry.get(spec.uses);
    if (!kind) throw new StepError(`unknown step kind '${spec.uses}'`); // validation refuses this earlier
    const started = o.clock.now();
    const done = (status: StepStatus, changes: number, outputs: Outputs, items?: number): void =>
      this.stepDone(spec, started, status, changes, outputs, items);
    try {
      if (await this.beforeStep(spec, kind, done)) return;
      if (spec.if !== undefined && !evaluateCondition(spec.if, rc.scope)) {
        await this.skipped(spec);
        done('skipped', 0, {});
        return;
      }
      const groups = expand(rc, spec, kind);
      if (kind.verify !== undefined && spec.forEach === undefined && !this.verified.has(spec.id)) {
        const diagnostics = await this.verifyStep(spec, kind, groups[0]?.with ?? {});
        if (diagnostics.length > 0) throw new ValidationError('LB_INPUT_INVALID', diagnostics);
      }
      await rc.withSession(spec, kind, () => this.items(spec, kind, groups, done));
    } catch (error) {
      const status =
        error instanceof PausedError
          ? 'paused'
          : isAmbiguous(error)
            ? 'ambiguous'
            : this.interrupted(error)
              ? 'interrupted'
              : 'failed';
      rc.sayOnceAgain(spec.id);
      o.events.emit({
        type: 'step.done',
        step: spec.id,
        status,
        changes: 0,
        durationMs: Math.round(o.clock.now() - started),
        ...(error instanceof LedgerbookError ? { error: errorInfo(error) } : {}),
      });
      throw error;
    }
  }

  /** A step's items, listed and worked on, within its session. */
  private async items(
    spec: StepSpec,
    kind: AnyStepKind,
    groups: Group[],
    done: ListedStep['done'],
  ): Promise<void> {
    const { rc } = this;
    const { o } = rc;
    const resolvedGroups = await withItems(rc, spec, kind, groups);
    // items a step lists itself (a recipients file) count with their values: an edited line is a changed step
    const withDigest = kind.items
      ? itemsDigest(resolvedGroups)
      : digestOf(resolvedGroups.map((g) => [g.with, g.items.map((i) => i.key)]));
    const prior = this.resumed?.steps.get(spec.id);
    if (prior?.finished && prior.finished.withDigest === withDigest) {
      done('resumed', 0, prior.finished.outputs);
      return;
    }
    const total = resolvedGroups.reduce((n, g) => n + g.items.length, 0);
    o.events.emit({ type: 'step.start', step: spec.id, kind: spec.uses, items: total });
    this.stepStarted(spec, withDigest, total);
    const sameWith = prior?.withDigest === withDigest;
    const execution: StepExecution = {
      spec,
      kind,
      previous: o.fresh ? undefined : lastFinishedStep(rc.journal.records, spec.id, withDigest),
      progress: new Progress(o, spec.id, total),
      pacer: new Pacer(spec.concurrency ?? kind.concurrency ?? 1, o.clock),
      doneItems: sameWith ? prior.done : new Map<string, { status: string; outputs: Outputs }>(),
      pending: prior?.pending ?? new Map<string, Intent[]>(),
      observed: new Map<number, Promise<unknown>>(),
    };
    const results = await this.executor.run(execution, resolvedGroups);
    await this.stepEnded({ execution, groups: resolvedGroups, results, withDigest, done });
  }

  private stepDone(
    spec: StepSpec,
    started: number,
    status: StepStatus,
    changes: number,
    outputs: Outputs,
    items?: number,
  ): void {
    const { rc } = this;
    rc.sayOnceAgain(spec.id);
    rc.scope.steps[spec.id] = { outputs };
    rc.o.events.emit({
      type: 'step.done',
      step: spec.id,
      status,
      changes,
      outputs,
      durationMs: Math.round(rc.o.clock.now() - started),
      ...(items === undefined ? {} : { items }),
    });
  }

  /** The step's outputs from its items: by element for `for_each`, the kind's `combine`, or the single item's. */
  /**
   * The step's outputs from its kind's `finish` (a run) or `preview` (a plan) when it has one — with the step's
   * observed state, if it was observed, under the step's retry policy — else its items' outputs combined.
   */
  protected async kindOutputs(
    step: StepExecution,
    groups: Group[],
    results: ItemOutcome[],
    hook: 'finish' | 'preview',
    ctx?: StepContext,
  ): Promise<Outputs> {
    const { spec, kind } = step;
    if (!kind[hook] || spec.forEach !== undefined) return this.combine(spec, kind, groups, results);
    const w = groups[0]?.with ?? {};
    const context = ctx ?? this.executor.stepContext(step, w);
    const state = step.observed.get(0);
    return this.rc.retry(
      spec,
      '',
      async () =>
        kind[hook]?.(context, w, itemResultsOf(results), state === undefined ? undefined : await state) ?? {},
    );
  }

  protected combine(spec: StepSpec, kind: AnyStepKind, groups: Group[], results: ItemOutcome[]): Outputs {
    const itemResults = itemResultsOf(results);
    if (spec.forEach !== undefined) {
      const byKey: Record<string, Outputs> = {};
      for (const r of itemResults) byKey[r.key] = r.outputs;
      return { results: byKey };
    }
    if (kind.combine) return kind.combine(groups[0]?.with ?? {}, itemResults);
    return itemResults[0]?.outputs ?? {};
  }

  // ---------------------------------------------------------------------------------------------------------
  // Stopping and failing

  /** The first Ctrl-C, or a lost lock: say what the run waits for before it stops. */
  private sayStopping(): void {
    const { rc } = this;
    const waiting = [...rc.inFlight];
    const list = `${waiting.slice(0, 10).join(', ')}${waiting.length > 10 ? ` and ${waiting.length - 10} more` : ''}`;
    const reason: unknown = rc.stopping.reason;
    if (reason instanceof StateError) {
      // the lock is lost: nothing can be journalled any more
      rc.log(
        'error',
        waiting.length === 0
          ? `${reason.message}; no new step or item starts`
          : `${reason.message}; no new step or item starts; what is in flight gets ${LOST_LOCK_GRACE_MS / 1000} s to finish: ${list}`,
      );
      return;
    }
    rc.log(
      'warn',
      waiting.length === 0
        ? 'stopping: no new step or item starts'
        : `stopping: no new step or item starts; waiting for what is in flight to finish and be journalled: ${list}`,
    );
  }

  /** Whether `error` ends the step or run because the run was told to stop (at once, or after what is in flight). */
  private interrupted(error: unknown): boolean {
    const { rc } = this;
    return (
      !(error instanceof PausedError) &&
      (rc.o.signal.aborted || (rc.stopping.aborted && error === rc.stopping.reason))
    );
  }

  private failure(error: unknown): EngineResult {
    const base = { run: this.rc.runId, changes: this.rc.changes };
    if (this.interrupted(error)) {
      // a signal's own reason says nothing the outcome line does not; a service's or the state's error does
      return {
        ...base,
        status: 'interrupted',
        exitCode: EXIT_INTERRUPTED,
        ...(error instanceof LedgerbookError ? { error } : {}),
      };
    }
    if (error instanceof PausedError) return { ...base, status: 'paused', exitCode: EXIT.PAUSED, error };
    if (error instanceof LedgerbookError && isAmbiguous(error))
      return { ...base, status: 'ambiguous', exitCode: EXIT.AMBIGUOUS, error };
    if (error instanceof LedgerbookError)
      return { ...base, status: 'failed', exitCode: error.exitCode, error };
    const internal = new LedgerbookError(
      'LB_INTERNAL',
      `internal error: ${error instanceof Error ? error.message : String(error)}`,
      {
        cause: error,
        hint: 'this is a bug in ledgerbook: rerun with --debug and report the stack trace',
      },
    );
    return { ...base, status: 'failed', exitCode: EXIT.INTERNAL, error: internal };
  }
}

/** Item outcomes as a kind's `combine` and `finish` get them. */
export function itemResultsOf(results: readonly ItemOutcome[]): ItemResult[] {
  return results.map((r) => ({
    key: r.key,
    outputs: r.outputs,
    status: r.status === 'planned' ? 'in-sync' : r.status,
  }));
}
