/**
 * The run loop: steps in order; per step `if`, `with` resolution, observe, plan, apply with retry and timeout,
 * checkpoints per item; resume of an unfinished run; `plan` mode without side effects.
 */
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Clients } from '../clients/clients.js';
import {
  AmbiguousOutcomeError,
  EXIT,
  LedgerbookError,
  PausedError,
  StateError,
  StepError,
  TimeoutError,
  ValidationError,
  type ExitCode,
} from '../errors.js';
import {
  collectReferences,
  evaluateCondition,
  evaluateString,
  resolveDeep,
  type Scope,
} from '../playbook/expressions/index.js';
import type { Diagnostic } from '../diagnostics.js';
import type { Playbook, StepSpec } from '../playbook/model.js';
import type { Target } from '../playbook/target.js';
import { checkResolvedWith } from '../playbook/schema-check.js';
import { lazyPointers, positionedFinding } from '../playbook/resolved-check.js';
import { commandIdOf } from './command-id.js';
import { canonicalJson, digestOf, sha256 } from './digest.js';
import { EventBus } from './event-bus.js';
import type { EventOf } from './events.js';
import type { JournalRecord, RunJournal } from './journal.js';
import { lastFinishedStep, lastRun, type RunState, type StepState } from './journal-state.js';
import { LOST_LOCK_GRACE_MS, type Lock } from './lock.js';
import type { Masker } from './masker.js';
import { HeapGovernor } from './heap.js';
import { Pacer } from './pacer.js';
import { pool } from './pool.js';
import { pressureDelay, retryDelay, shouldRetry, withRetry } from './retry.js';
import { openRun, stateCheck } from './open-run.js';
import { playbookPath } from './playbook-path.js';
import { lastRunMark, type PlanGuard, type PlannedStep } from './saved-plan.js';
import { itemArgs, stateCommand, type StateCommand } from './state-command.js';
import type { StateBackend } from './state/backend.js';
import { FileStateBackend } from './state/file.js';
import { runDir } from './state-dir.js';
import type {
  AnyStepKind,
  Change,
  Clock,
  Intent,
  Item,
  ItemContext,
  ItemPlan,
  ItemResult,
  LogLevel,
  Outputs,
  StepContext,
} from './step.js';

export type RunMode = 'run' | 'plan';
export type RunStatus = 'succeeded' | 'failed' | 'paused' | 'ambiguous' | 'planned' | 'interrupted';

/** Exit code of a run interrupted by Ctrl-C or SIGTERM, as shells report it. */
export const EXIT_INTERRUPTED = 130;

export interface EngineOptions {
  playbook: Playbook;
  inputs: Record<string, unknown>;
  target: Target | undefined;
  /** the target's name, or `local` when the playbook needs none */
  targetName: string;
  mode: RunMode;
  stateDir: string;
  /** where journals and locks live when not in `stateDir` (e.g. PostgreSQL: `--state postgres://…`) */
  state?: StateBackend;
  /** start a new run instead of resuming an unfinished one, and forget journal-only memory */
  fresh: boolean;
  approvals: ReadonlySet<string>;
  secrets: Record<string, string>;
  env: Record<string, string | undefined>;
  registry: ReadonlyMap<string, AnyStepKind>;
  clients: Clients;
  clock: Clock;
  masker: Masker;
  events: EventBus;
  /**
   * aborted to stop at once (a second Ctrl-C, or SIGTERM after its grace period): the items in flight are
   * cancelled (a command gets SIGTERM), their intents left for the next run to reconcile
   */
  signal: AbortSignal;
  /**
   * aborted to stop after what is in flight (the first Ctrl-C or SIGTERM): no new step, item or attempt
   * starts; the items in flight run to their end, side effects journalled
   */
  stopping?: AbortSignal;
  /** the command line, for the lock */
  command: string;
  /**
   * the `ledgerbook state …` commands the run tells the operator to run, with the options that name this
   * run's state; default: by the playbook file and the target file only
   */
  stateCommand?: StateCommand;
  actor: string;
  /**
   * plan mode, `plan --untrusted`: the playbook may come from a change nobody reviewed yet (a pull request): no
   * step runs a command or contacts an address the playbook names (they say what they could not tell)
   */
  untrusted?: boolean;
  /**
   * `plan --untrusted`: the secrets the playbook reads, which such a plan does not read: unknown, like the
   * outputs of a step that will change; the steps that read them are known after apply
   */
  withheldSecrets?: ReadonlySet<string>;
  random?: () => number;
  /**
   * run mode, `run plan.json`: under the lock, the playbook is planned again (no side effect) and `verify`
   * refuses the run when that plan differs from the saved one; then `guard` holds each item to it
   */
  savedPlan?: {
    guard: PlanGuard;
    verify(planned: PlannedStep[], records: readonly JournalRecord[]): void;
  };
}

export interface EngineResult {
  run: string;
  status: RunStatus;
  exitCode: ExitCode | typeof EXIT_INTERRUPTED;
  /** changes applied (run) or that would be applied (plan) */
  changes: number;
  error?: LedgerbookError | undefined;
  /** plan mode: each step's plan, for a saved plan (`plan --out`) */
  planned?: PlannedStep[];
  /** plan mode: the journal's last run record when planning, the state a saved plan is made against */
  lastRun?: { run: string; at: string } | undefined;
}

export async function runPlaybook(options: EngineOptions): Promise<EngineResult> {
  const state = options.state ?? new FileStateBackend(options.stateDir);
  const key = { playbook: options.playbook.name, target: options.targetName };
  const owner = {
    file: options.playbook.file,
    path: playbookPath(options.playbook.file),
    fresh: options.fresh,
  };
  const command =
    options.stateCommand ?? stateCommand({ playbook: options.playbook.file, target: options.target?.file });
  const opened =
    options.mode === 'run'
      ? await openRun(
          state,
          key,
          { pid: process.pid, host: hostname(), user: options.actor, command: options.command },
          options.masker,
          owner,
          command,
        )
      : undefined;
  const lock = opened?.lock;
  const releaseOnExit = (): void => lock?.releaseSync();
  process.once('exit', releaseOnExit);
  // A lock that is lost (a database session that ended, a lock file taken away) stops the run: nothing new
  // starts, the journal records nothing more (it is fenced), and what is in flight gets LOST_LOCK_GRACE_MS to
  // finish before it is cancelled, so that the next holder, which waits for this process, finds it settled.
  const lost = lock?.lost;
  const afterGrace = lost ? graceAfter(lost, LOST_LOCK_GRACE_MS) : undefined;
  const signal = afterGrace ? AbortSignal.any([options.signal, afterGrace.signal]) : options.signal;
  const stopping = lost
    ? AbortSignal.any([options.stopping ?? new AbortController().signal, lost])
    : options.stopping;
  // every request in flight listens to it: a fan-out has many more than ten at once
  setMaxListeners(0, signal);
  try {
    const journal =
      opened?.journal ??
      (await state.openJournal(key, options.masker, {
        readOnly: true,
        check: stateCheck(state, undefined, owner),
      }));
    try {
      const { savedPlan, ...unguarded } = options;
      if (savedPlan && options.mode === 'run') {
        // Planned again, without a side effect and without a word to the reporters, under this run's lock.
        const check = await new Run(
          { ...unguarded, mode: 'plan', signal, events: new EventBus(options.masker), stateCommand: command },
          journal,
          undefined,
          owner.path,
        ).execute();
        if (check.error) throw check.error;
        savedPlan.verify(check.planned ?? [], journal.records);
      }
      const result = await new Run(
        { ...options, signal, ...(stopping ? { stopping } : {}), stateCommand: command },
        journal,
        lock,
        owner.path,
      ).execute();
      return options.mode === 'plan' ? { ...result, lastRun: lastRunMark(journal.records) } : result;
    } finally {
      await journal.close();
    }
  } catch (error) {
    // Whatever failed once the lock was lost failed because of it: say that, not the failed write.
    throw lock?.lost?.aborted ? (lock.lost.reason as Error) : error;
  } finally {
    afterGrace?.dispose();
    process.removeListener('exit', releaseOnExit);
    await lock?.release();
  }
}

/** A signal aborted `ms` after `signal` is, with its reason; `dispose` stops the timer when the run ends first. */
function graceAfter(signal: AbortSignal, ms: number): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const start = (): void => {
    timer = setTimeout(() => controller.abort(signal.reason), ms);
    timer.unref();
  };
  if (signal.aborted) start();
  else signal.addEventListener('abort', start, { once: true });
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      signal.removeEventListener('abort', start);
    },
  };
}

/** Items of a step, grouped by the `with` they share: one group, or one per element of `for_each`. */
interface Group {
  with: Record<string, unknown>;
  items: Item[];
}

class Run {
  private readonly o: EngineOptions;
  private readonly journal: RunJournal;
  private readonly scope: Scope;
  private runId = '';
  private resumed: RunState | undefined;
  private changes = 0;
  /** the current step's: aborted when one of its items failed for good (see StepContext.siblingFailed) */
  private siblingFailed: AbortSignal = new AbortController().signal;
  /**
   * plan mode: the steps whose outputs are not all known before they apply, and which of their outputs are
   * not (`all`: none is)
   */
  private readonly unknownOutputs = new Map<string, ReadonlySet<string> | 'all'>();
  /** plan mode: vars that read a withheld secret (or such a var): unknown until apply */
  private readonly unknownVars = new Set<string>();
  /** plan mode: each step's plan */
  private readonly planned: PlannedStep[] = [];
  /** run mode: steps that changed something (a saved plan holds items strictly until one has) */
  private changedSteps = 0;
  private readonly random: () => number;
  private readonly fingerprint: string;
  private readonly stopping: AbortSignal;
  /** the items being worked on now (`step` or `step item`), for the message of a stop */
  private readonly inFlight = new Set<string>();
  /** per step running, the `once` keys of ctx.log said so far and the items that said them again */
  private readonly saidOnce = new Map<string, Map<string, string[]>>();
  private readonly inputsDigest: string;
  /** steps whose `verify` ran in this invocation */
  private readonly verified = new Set<string>();

  constructor(
    options: EngineOptions,
    journal: RunJournal,
    /** the run's lock: whose lock it replaced, and how long taking it waited for that run */
    private readonly lock: Pick<Lock, 'replaced' | 'waitedMs'> | undefined,
    /** the playbook as every checkout names it, recorded in the run record */
    private readonly playbookPath: string,
  ) {
    this.o = options;
    this.journal = journal;
    this.random = options.random ?? Math.random;
    this.stopping = options.stopping ?? new AbortController().signal;
    this.inputsDigest = digestOf(options.inputs);
    this.fingerprint = sha256(`${options.playbook.digest}\n${this.inputsDigest}`);
    this.scope = {
      inputs: options.inputs,
      vars: {},
      steps: {},
      secrets: options.secrets,
      env: options.env,
      target: options.target ? { ...options.target, file: undefined } : undefined,
    };
  }

  async execute(): Promise<EngineResult> {
    const { o } = this;
    const started = o.clock.now();
    this.begin();
    o.events.emit({
      type: 'run.start',
      run: this.runId,
      mode: o.mode,
      playbook: o.playbook.name,
      file: o.playbook.file,
      target: o.targetName,
      resumed: this.resumed !== undefined,
      steps: o.playbook.steps.map((s) => ({ id: s.id, kind: s.uses, name: s.name })),
    });
    const replaced = this.lock?.replaced;
    if (replaced) {
      const waited = this.lock?.waitedMs ?? 0;
      this.log(
        'warn',
        waited > 0
          ? `the run of pid ${replaced.pid} on ${replaced.host} (since ${replaced.at}) lost its lock while it ran; waited ${(waited / 1000).toFixed(1)} s for it to finish the commands it had in flight; taking over`
          : `the run of pid ${replaced.pid} (since ${replaced.at}) died without releasing its lock; taking over`,
      );
    }
    if (o.savedPlan && o.mode === 'run') {
      const { plan, file } = o.savedPlan.guard;
      this.log('info', `the saved plan ${file} still holds (${plan.changes} planned changes): applying it`);
    }
    if (this.resumed && this.resumed.digest !== o.playbook.digest) {
      this.log(
        'warn',
        'the playbook changed since this run started: finished steps stay done, changed steps run again',
      );
    }
    let result: EngineResult;
    const onStop = (): void => this.sayStopping();
    this.stopping.addEventListener('abort', onStop, { once: true });
    try {
      this.resolveVars();
      await this.verifyAhead();
      for (const spec of o.playbook.steps) {
        if (o.signal.aborted) throw o.signal.reason;
        if (this.stopping.aborted) throw this.stopping.reason;
        await this.step(spec);
      }
      result = {
        run: this.runId,
        status: o.mode === 'plan' ? 'planned' : 'succeeded',
        exitCode: EXIT.OK,
        changes: this.changes,
        ...(o.mode === 'plan' ? { planned: this.planned } : {}),
      };
    } catch (error) {
      result = this.failure(error);
    } finally {
      this.stopping.removeEventListener('abort', onStop);
    }
    if (o.mode === 'run') {
      const status = result.status === 'planned' ? 'succeeded' : result.status;
      const record: JournalRecord = {
        t: 'end',
        run: this.runId,
        at: this.isoNow(),
        status,
        exitCode: result.exitCode,
        ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
      };
      await this.journal.appendDurable(record);
    }
    o.events.emit({
      type: 'run.done',
      run: this.runId,
      status: result.status,
      exitCode: result.exitCode,
      changes: this.changes,
      durationMs: Math.round(o.clock.now() - started),
      ...(result.error ? { error: errorInfo(result.error) } : {}),
    });
    return result;
  }

  /** Resume the last run when it did not finish (unless --fresh); otherwise start a new one. */
  private begin(): void {
    const { o } = this;
    const last = lastRun(this.journal.records);
    const resumable = last !== undefined && last.status !== 'succeeded';
    if (o.mode === 'run' && resumable && !o.fresh) {
      this.resumed = last;
      this.runId = last.run;
    } else {
      const stamp = new Date(o.clock.now()).toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
      this.runId = `${stamp}-${Math.floor(this.random() * 0xffff)
        .toString(16)
        .padStart(4, '0')}`;
    }
    // A resumed run gets a `run` record too: it says who carries it on now and clears its earlier end.
    if (o.mode === 'run') {
      this.journal.append({
        t: 'run',
        v: 1,
        run: this.runId,
        at: this.isoNow(),
        playbook: o.playbook.name,
        file: o.playbook.file,
        path: this.playbookPath,
        target: o.targetName,
        digest: o.playbook.digest,
        inputsDigest: this.inputsDigest,
        pid: process.pid,
        host: hostname(),
        user: o.actor,
        mode: 'run',
        fresh: o.fresh,
      });
    }
  }

  private resolveVars(): void {
    for (const [name, value] of Object.entries(this.o.playbook.vars)) {
      if (this.unknownDependencies([value]).length > 0) {
        this.unknownVars.add(name);
        continue;
      }
      try {
        this.scope.vars[name] = resolveDeep(value, this.scope);
      } catch (error) {
        if (!(error instanceof LedgerbookError)) throw error;
        throw new StepError(`vars.${name}: ${error.message}`, {
          hint: error.hint ?? 'fix the expression of this var, or the inputs it reads',
          cause: error,
        });
      }
    }
  }

  /**
   * Before the first step: the kinds' `verify` (read-only checks against the services) of every step whose `with`
   * reads nothing that a step computes, so that a recipient the network does not know refuses the run before the
   * first step sends anything. The other steps are verified when they start.
   */
  private async verifyAhead(): Promise<void> {
    const diagnostics: Diagnostic[] = [];
    for (const spec of this.o.playbook.steps) {
      const kind = this.o.registry.get(spec.uses);
      if (kind?.verify === undefined || spec.forEach !== undefined) continue;
      if (readsSteps([spec.with, spec.if])) continue;
      if (this.resumed?.steps.get(spec.id)?.finished) continue;
      if (spec.if !== undefined && !evaluateCondition(spec.if, this.scope)) continue;
      const [group] = this.expand(spec, kind);
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
    const findings = (await kind.verify?.(this.stepContext(spec, undefined, w), w)) ?? [];
    return findings.map((finding) =>
      positionedFinding(this.o.playbook, spec, finding, {
        rule: 'verify',
        advice: 'the services say this value cannot be used: fix it before anything is sent',
      }),
    );
  }

  /** The first Ctrl-C, or a lost lock: say what the run waits for before it stops. */
  private sayStopping(): void {
    const waiting = [...this.inFlight];
    const list = `${waiting.slice(0, 10).join(', ')}${waiting.length > 10 ? ` and ${waiting.length - 10} more` : ''}`;
    const reason: unknown = this.stopping.reason;
    if (reason instanceof StateError) {
      // the lock is lost: nothing can be journalled any more
      this.log(
        'error',
        waiting.length === 0
          ? `${reason.message}; no new step or item starts`
          : `${reason.message}; no new step or item starts; what is in flight gets ${LOST_LOCK_GRACE_MS / 1000} s to finish: ${list}`,
      );
      return;
    }
    this.log(
      'warn',
      waiting.length === 0
        ? 'stopping: no new step or item starts'
        : `stopping: no new step or item starts; waiting for what is in flight to finish and be journalled: ${list}`,
    );
  }

  /** Whether `error` ends the step or run because the run was told to stop (at once, or after what is in flight). */
  private interrupted(error: unknown): boolean {
    return (
      !(error instanceof PausedError) &&
      (this.o.signal.aborted || (this.stopping.aborted && error === this.stopping.reason))
    );
  }

  private failure(error: unknown): EngineResult {
    const base = { run: this.runId, changes: this.changes };
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

  // ---------------------------------------------------------------------------------------------------------
  // One step

  private async step(spec: StepSpec): Promise<void> {
    const { o } = this;
    const kind = o.registry.get(spec.uses);
    if (!kind) throw new StepError(`unknown step kind '${spec.uses}'`); // validation refuses this earlier
    const started = o.clock.now();
    const done = (
      status: 'applied' | 'in-sync' | 'skipped' | 'resumed' | 'planned',
      changes: number,
      outputs: Outputs,
      items?: number,
    ): void => {
      this.sayOnceAgain(spec.id);
      this.scope.steps[spec.id] = { outputs };
      o.events.emit({
        type: 'step.done',
        step: spec.id,
        status,
        changes,
        outputs,
        durationMs: Math.round(o.clock.now() - started),
        ...(items === undefined ? {} : { items }),
      });
    };

    try {
      if (o.mode === 'plan') {
        const waitingOn = this.unknownDependencies([spec.with, spec.if, spec.forEach, spec.key]);
        // a step whose `if` is known and false is skipped below like any other
        const ifKnown = this.unknownDependencies([spec.if]).length === 0;
        if (
          waitingOn.length > 0 &&
          (!ifKnown || spec.if === undefined || evaluateCondition(spec.if, this.scope))
        ) {
          this.unknownOutputs.set(spec.id, 'all');
          const keys = ifKnown ? await this.itemKeysBeforeApply(spec, kind) : undefined;
          const on = dependenciesText(waitingOn);
          this.log(
            'info',
            keys === undefined
              ? `known after apply: depends on ${on}`
              : `known after apply: ${plural(keys.length, 'item')}${keys.length > 0 ? ` (${listed(keys)})` : ''}; their changes depend on ${on}`,
            spec.id,
          );
          this.planned.push({
            id: spec.id,
            uses: spec.uses,
            status: 'known-after-apply',
            dependsOn: waitingOn,
            ...(keys === undefined ? {} : { itemKeys: this.o.masker.maskDeep(keys) }),
            changes: 0,
            items: [],
          });
          done('planned', 0, {}, keys?.length);
          return;
        }
      }
      if (spec.if !== undefined && !evaluateCondition(spec.if, this.scope)) {
        if (o.mode === 'plan')
          this.planned.push({ id: spec.id, uses: spec.uses, status: 'skipped', changes: 0, items: [] });
        await this.finishStep(spec, 'skipped', {}, '');
        done('skipped', 0, {});
        return;
      }
      const groups = this.expand(spec, kind);
      if (kind.verify !== undefined && spec.forEach === undefined && !this.verified.has(spec.id)) {
        const diagnostics = await this.verifyStep(spec, kind, groups[0]?.with ?? {});
        if (diagnostics.length > 0) throw new ValidationError('LB_INPUT_INVALID', diagnostics);
      }
      const resolvedGroups = await this.withItems(spec, kind, groups);
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
      if (o.mode === 'run' && o.savedPlan?.guard.knownAfterApply(spec.id))
        this.log('info', 'known after apply in the saved plan: planned now', spec.id);
      if (o.mode === 'run') {
        this.journal.append({
          t: 'step',
          run: this.runId,
          step: spec.id,
          at: this.isoNow(),
          withDigest,
          items: total,
        });
      }
      const previous = o.fresh ? undefined : lastFinishedStep(this.journal.records, spec.id, withDigest);
      const progress = new Progress(o, spec.id, total);
      const pacer = new Pacer(spec.concurrency ?? kind.concurrency ?? 1, o.clock);
      const sameWith = prior?.withDigest === withDigest;
      const observed = new Map<number, Promise<unknown>>();
      const results = await this.runGroups(spec, kind, resolvedGroups, {
        previous,
        progress,
        pacer,
        doneItems: sameWith ? prior.done : new Map<string, { status: string; outputs: Outputs }>(),
        pending: prior?.pending ?? new Map<string, Intent[]>(),
        observed,
      });
      const stepChanges = results.reduce((n, r) => n + r.changes, 0);
      if (o.mode === 'plan') {
        await this.recordPlan(spec, kind, resolvedGroups, observed, results, stepChanges);
        if (stepChanges === 0) {
          done('in-sync', 0, this.combine(spec, kind, resolvedGroups, results));
          return;
        }
        // what a step that will change says of its outputs already (one item: fan-outs combine theirs)
        const known = spec.forEach === undefined && results.length === 1 ? results[0]?.known : undefined;
        this.unknownOutputs.set(
          spec.id,
          known ? new Set(Object.keys(kind.outputs).filter((name) => !(name in known))) : 'all',
        );
        done('planned', stepChanges, known ?? {});
        return;
      }
      const outputs = await this.finish(spec, kind, resolvedGroups, results, previous, observed.get(0));
      const status =
        stepChanges > 0 || results.some((r) => r.status === 'reconciled') ? 'applied' : 'in-sync';
      if (status === 'applied') this.changedSteps++;
      await this.finishStep(spec, status, outputs, withDigest);
      done(status, stepChanges, outputs);
    } catch (error) {
      const status =
        error instanceof PausedError
          ? 'paused'
          : isAmbiguous(error)
            ? 'ambiguous'
            : this.interrupted(error)
              ? 'interrupted'
              : 'failed';
      this.sayOnceAgain(spec.id);
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

  private async finishStep(
    spec: StepSpec,
    status: 'applied' | 'in-sync' | 'skipped',
    outputs: Outputs,
    withDigest: string,
  ): Promise<void> {
    if (this.o.mode !== 'run') return;
    await this.journal.appendDurable({
      t: 'step-done',
      run: this.runId,
      step: spec.id,
      at: this.isoNow(),
      status,
      outputs,
      withDigest,
    });
  }

  /**
   * Plan mode: the step's entry of a saved plan. Digests are of masked values: a saved plan holds nothing a
   * secret could be recovered from.
   */
  private async recordPlan(
    spec: StepSpec,
    kind: AnyStepKind,
    groups: Group[],
    observed: Map<number, Promise<unknown>>,
    results: ItemOutcome[],
    changes: number,
  ): Promise<void> {
    const { masker } = this.o;
    const states = await Promise.all([...observed.entries()].sort(([a], [b]) => a - b).map(([, s]) => s));
    this.planned.push({
      id: spec.id,
      uses: spec.uses,
      status: changes > 0 ? 'changes' : 'in-sync',
      withDigest: digestOf(masker.maskDeep(groups.map((g) => [g.with, g.items.map((i) => i.key)]))),
      stateDigest: digestOf(
        masker.maskDeep(kind.planState ? states.map((s) => kind.planState?.(s)) : states),
      ),
      changes,
      items: results
        .filter((r) => r.planned !== undefined && r.planned.length > 0)
        .map((r) => ({
          key: r.key,
          changes: masker.maskDeep(
            (r.planned ?? []).map((c) => ({
              action: c.action,
              summary: c.summary,
              ...(c.details ? { details: c.details } : {}),
            })),
          ),
        })),
    });
  }

  /**
   * What `values` refer to that is not known yet (plan mode): steps whose outputs are not (by id), and, in an
   * untrusted plan, secrets it was not given (`secrets.NAME`) and the vars that read them (`vars.NAME`).
   */
  private unknownDependencies(values: readonly unknown[]): string[] {
    const withheld = this.o.withheldSecrets;
    if (this.unknownOutputs.size === 0 && !withheld?.size) return [];
    const found = new Set<string>();
    const unknown = ([id, section, name]: readonly string[]): boolean => {
      const outputs = id === undefined ? undefined : this.unknownOutputs.get(id);
      if (outputs === undefined) return false;
      // the whole step, or all its outputs, is unknown while any of them is
      if (outputs === 'all' || section !== 'outputs' || name === undefined) return true;
      return outputs.has(name);
    };
    const visit = (value: unknown): void => {
      if (typeof value === 'string') {
        for (const ref of collectReferences(value)) {
          const name = ref.path[0] ?? '';
          if (ref.root === 'steps' && unknown(ref.path)) found.add(name);
          else if (ref.root === 'secrets' && withheld?.has(name)) found.add(`secrets.${name}`);
          else if (ref.root === 'vars' && this.unknownVars.has(name)) found.add(`vars.${name}`);
        }
      } else if (Array.isArray(value)) value.forEach(visit);
      else if (value && typeof value === 'object') Object.values(value).forEach(visit);
    };
    visit(values);
    return [...found];
  }

  /**
   * Plan mode, a step known after apply: the keys of the items it will have, when they do not depend on what is
   * unknown — a `for_each` over known values, or `items()` of a kind that says which fields it reads
   * (`itemsFrom`) when those are known. Undefined when they cannot be told, and for a step of one item.
   */
  private async itemKeysBeforeApply(spec: StepSpec, kind: AnyStepKind): Promise<string[] | undefined> {
    if (spec.forEach !== undefined) {
      if (this.unknownDependencies([spec.forEach, spec.key]).length > 0) return undefined;
      return this.forEachElements(spec).map((e) => e.key);
    }
    if (!kind.items || !kind.itemsFrom) return undefined;
    const fields = kind.itemsFrom.filter((field) => field in spec.with);
    if (this.unknownDependencies(fields.map((field) => spec.with[field])).length > 0) return undefined;
    const w = Object.fromEntries(fields.map((field) => [field, resolveDeep(spec.with[field], this.scope)]));
    const items = await kind.items(w, this.stepContext(spec, undefined, w));
    return items.map((item) => item.key);
  }

  /** Resolve `with` (and `for_each`) against the scope; check the result against the kind's schema. */
  private expand(spec: StepSpec, kind: AnyStepKind): Group[] {
    const lazy = lazyPointers(kind);
    const skip = (pointer: string): boolean => lazy.has(pointer);
    const resolveWith = (scope: Scope): Record<string, unknown> => {
      const value = resolveDeep(spec.with, scope, skip) as Record<string, unknown>;
      const findings = checkResolvedWith(kind, value);
      if (findings.length > 0) {
        const lines = findings.map(
          (f) => `with${f.pointer}: ${f.message}${f.expected ? ` (expected ${f.expected})` : ''}`,
        );
        throw new StepError(
          `step '${spec.id}' (${spec.uses}): its resolved \`with\` is invalid: ${lines.join('; ')}`,
          {
            hint: 'an expression produced a value of the wrong type or shape; check the inputs and outputs it uses',
          },
        );
      }
      return value;
    };
    if (spec.forEach === undefined) return [{ with: resolveWith(this.scope), items: [] }];
    return this.forEachElements(spec).map(({ key, element }) => ({
      with: resolveWith({ ...this.scope, item: element }),
      items: [{ key, value: element }],
    }));
  }

  /** The elements of a `for_each` step, each with its key (checkpoints are named by it). */
  private forEachElements(spec: StepSpec): Array<{ key: string; element: unknown }> {
    const list = Array.isArray(spec.forEach)
      ? resolveDeep(spec.forEach, this.scope)
      : evaluateString(spec.forEach as string, this.scope);
    if (!Array.isArray(list)) {
      const at = this.o.playbook.source.positionOf(`${spec.pointer}/for_each`);
      const where = `${this.o.playbook.file}:${at.line}:${at.col}`;
      throw new StepError(`${where}: step '${spec.id}': for_each must give a list, got ${typeName(list)}`, {
        hint: 'use a list, or an expression such as `${{ inputs.recipients }}` that gives one',
      });
    }
    const seen = new Set<string>();
    return list.map((element: unknown, index) => {
      const scope: Scope = { ...this.scope, item: element };
      const key =
        spec.key !== undefined
          ? String(evaluateString(spec.key, scope))
          : typeof element === 'string' || typeof element === 'number'
            ? String(element)
            : String(index);
      if (seen.has(key)) {
        throw new StepError(`step '${spec.id}': two for_each elements have the key '${key}'`, {
          hint: 'keys name checkpoints and must be unique: set `key:` to an expression that tells elements apart',
        });
      }
      seen.add(key);
      return { key, element };
    });
  }

  /** Fill in the items of a step that fans out by itself (`items()`), or its single item. */
  private async withItems(spec: StepSpec, kind: AnyStepKind, groups: Group[]): Promise<Group[]> {
    if (spec.forEach !== undefined) return groups;
    const group = groups[0];
    if (!group) return groups;
    const items = kind.items
      ? await kind.items(group.with, this.stepContext(spec, undefined, group.with))
      : [{ key: '', value: group.with }];
    const keys = new Set(items.map((i) => i.key));
    if (keys.size !== items.length)
      throw new StepError(`step '${spec.id}': ${spec.uses} produced duplicate item keys`);
    return [{ with: group.with, items }];
  }

  /** `run`: the kind's `finish` when it has one (with the step's observed state, if it was observed), else combine. */
  private async finish(
    spec: StepSpec,
    kind: AnyStepKind,
    groups: Group[],
    results: ItemOutcome[],
    previous: { outputs: Outputs } | undefined,
    state: Promise<unknown> | undefined,
  ): Promise<Outputs> {
    if (!kind.finish || spec.forEach !== undefined) return this.combine(spec, kind, groups, results);
    const w = groups[0]?.with ?? {};
    const ctx = this.stepContext(spec, previous, w);
    return withRetry(
      async () =>
        kind.finish?.(ctx, w, itemResultsOf(results), state === undefined ? undefined : await state) ?? {},
      {
        policy: spec.retry,
        clock: this.o.clock,
        signal: this.o.signal,
        random: this.random,
        onRetry: (info) => this.retryEvent(spec, '', info.attempt, info.delayMs, info.error),
      },
    );
  }

  private combine(spec: StepSpec, kind: AnyStepKind, groups: Group[], results: ItemOutcome[]): Outputs {
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
  // Items

  private async runGroups(
    spec: StepSpec,
    kind: AnyStepKind,
    groups: Group[],
    memory: {
      previous: { outputs: Outputs } | undefined;
      progress: Progress;
      pacer: Pacer;
      doneItems: StepState['done'];
      pending: StepState['pending'];
      /** the observed state of each group, by group index, as it is observed */
      observed: Map<number, Promise<unknown>>;
    },
  ): Promise<ItemOutcome[]> {
    const units: Array<{ group: Group; item: Item; groupIndex: number }> = [];
    groups.forEach((group, groupIndex) =>
      group.items.forEach((item) => units.push({ group, item, groupIndex })),
    );
    const states = memory.observed;
    const observe = (groupIndex: number, group: Group): Promise<unknown> => {
      let state = states.get(groupIndex);
      if (!state) {
        // a for_each group is one element: it sees that element as `item`, and its own part of earlier outputs
        const element = spec.forEach !== undefined ? group.items[0] : undefined;
        const previous = element ? elementPrevious(memory.previous, element.key) : memory.previous;
        const ctx = this.stepContext(spec, previous, group.with, this.o.signal, element);
        state = withRetry(() => kind.observe(ctx, group.with), {
          policy: spec.retry,
          clock: this.o.clock,
          signal: this.o.signal,
          random: this.random,
          onRetry: (info) => this.retryEvent(spec, '', info.attempt, info.delayMs, info.error),
        });
        states.set(groupIndex, state);
      }
      return state;
    };
    const concurrency = spec.concurrency ?? kind.concurrency ?? 1;
    const siblings = new AbortController();
    this.siblingFailed = siblings.signal;
    const onFailure = (error: unknown): void => {
      if (error instanceof LedgerbookError && error.retryability === 'permanent' && !siblings.signal.aborted)
        siblings.abort(
          new StepError(`step '${spec.id}': stopped waiting, another item failed: ${error.message}`),
        );
    };
    let reportCtx: StepContext | undefined;
    // after a stop, no new item starts; the ones in flight finish
    const starting = AbortSignal.any([this.o.signal, this.stopping]);
    return pool(units, concurrency, starting, onFailure, async ({ group, item, groupIndex }) => {
      const label = item.key === '' ? spec.id : `${spec.id} ${item.key}`;
      this.inFlight.add(label);
      try {
        const outcome = await this.item(spec, kind, group, item, () => observe(groupIndex, group), memory);
        memory.progress.tick(outcome.status);
        if (this.o.mode === 'run' && kind.onItem && outcome.status !== 'planned') {
          reportCtx ??= this.stepContext(spec, memory.previous, group.with);
          kind.onItem(reportCtx, group.with, item, {
            key: outcome.key,
            outputs: outcome.outputs,
            status: outcome.status,
          });
          // the kind has them now: the step's results do not keep them
          outcome.outputs = NO_OUTPUTS;
        }
        return outcome;
      } finally {
        this.inFlight.delete(label);
      }
    });
  }

  private async item(
    spec: StepSpec,
    kind: AnyStepKind,
    group: Group,
    item: Item,
    observe: () => Promise<unknown>,
    memory: {
      previous: { outputs: Outputs } | undefined;
      pacer: Pacer;
      doneItems: StepState['done'];
      pending: StepState['pending'];
    },
  ): Promise<ItemOutcome> {
    // the intents the journal holds for this item after its last `done`: an earlier run's, then this run's
    const recorded: Intent[] = [...(memory.pending.get(item.key) ?? [])];
    try {
      return await this.settleItem(spec, kind, group, item, observe, memory, recorded);
    } catch (error) {
      throw this.forOperator(error, spec, item, recorded);
    }
  }

  /**
   * An ambiguous outcome as the operator gets it (exit 4): what was recorded before the side effect, and the
   * commands that record their decision about this very item.
   */
  private forOperator(error: unknown, spec: StepSpec, item: Item, recorded: readonly Intent[]): unknown {
    if (!(error instanceof LedgerbookError) || !isAmbiguous(error) || recorded.length === 0) return error;
    const resolve = (decision: '--done' | '--redo'): string =>
      this.command('resolve', [...itemArgs(spec.id, item.key), decision]);
    const seen = error instanceof AmbiguousOutcomeError ? error.seen : error.message;
    return new AmbiguousOutcomeError(
      error.message,
      `${seen}; recorded before the side effect: ${recorded.map(describeIntent).join('; ')}`,
      `${error.hint ? `${error.hint}; then` : 'check whether it took effect, then'} record your decision: \`${resolve('--done')}\` if it took effect, or \`${resolve('--redo')}\` to have the next run do it again`,
      error,
    );
  }

  private get command(): StateCommand {
    return (
      this.o.stateCommand ?? stateCommand({ playbook: this.o.playbook.file, target: this.o.target?.file })
    );
  }

  private async settleItem(
    spec: StepSpec,
    kind: AnyStepKind,
    group: Group,
    item: Item,
    observe: () => Promise<unknown>,
    memory: {
      previous: { outputs: Outputs } | undefined;
      pacer: Pacer;
      doneItems: StepState['done'];
      pending: StepState['pending'];
    },
    recorded: Intent[],
  ): Promise<ItemOutcome> {
    const { o } = this;
    const w = group.with;
    const finished = memory.doneItems.get(item.key);
    if (finished) {
      o.events.emit({
        type: 'item.done',
        step: spec.id,
        item: item.key,
        status: 'skipped',
        ...outputsOf(finished.outputs),
      });
      return { key: item.key, outputs: finished.outputs, changes: 0, status: 'skipped' };
    }
    const intents = memory.pending.get(item.key);
    if (o.mode === 'run' && intents && intents.length > 0) {
      const ctx = this.itemContext(spec, memory.previous, w, item, 1, []);
      const verdict = await withRetry(() => kind.reconcile(ctx, w, item, intents), {
        policy: spec.retry,
        clock: o.clock,
        signal: o.signal,
        random: this.random,
        onRetry: (info) => this.retryEvent(spec, item.key, info.attempt, info.delayMs, info.error),
      });
      if (verdict.status === 'ambiguous') {
        throw new AmbiguousOutcomeError(
          `step '${spec.id}'${item.key ? ` item '${item.key}'` : ''}: the outcome of an earlier attempt cannot be told`,
          verdict.seen,
          verdict.hint,
        );
      }
      if (verdict.status === 'done') {
        const outputs = verdict.outputs ?? {};
        this.itemDone(spec, item, 'reconciled', outputs);
        return { key: item.key, outputs, changes: 0, status: 'reconciled' };
      }
      if (verdict.note)
        this.log('info', `${item.key || spec.id}: not done before, doing it now (${verdict.note})`, spec.id);
    }
    const state = await observe();
    const plan = kind.plan(w, state, item);
    if (o.mode === 'run' && o.savedPlan) {
      // the saved plan holds masked changes
      const changes = o.masker.maskDeep(plan.changes);
      const note = o.savedPlan.guard.checkItem(spec.id, item.key, changes, this.changedSteps > 0);
      if (note) this.log('info', note, spec.id);
    }
    if (plan.changes.length === 0) {
      const outputs = plan.outputs ?? {};
      this.itemDone(spec, item, 'in-sync', outputs);
      return { key: item.key, outputs, changes: 0, status: 'in-sync' };
    }
    o.events.emit({
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
    if (o.mode === 'plan') {
      this.changes += plan.changes.length;
      return {
        key: item.key,
        outputs: {},
        changes: plan.changes.length,
        status: 'planned',
        planned: plan.changes,
        ...(plan.knownOutputs ? { known: plan.knownOutputs } : {}),
      };
    }
    let outputs: Outputs;
    /** the intents of the attempt that succeeded */
    const sent: Intent[] = [];
    try {
      outputs = await this.apply(
        spec,
        kind,
        w,
        item,
        plan,
        state,
        memory.previous,
        memory.pacer,
        recorded,
        sent,
      );
    } catch (error) {
      // A definite failure settles the item's intents; an ambiguous one, a pause (a wait that outlived this
      // run: the side effect is still under way), an interruption or a bug leaves them for reconcile next run.
      if (
        !o.signal.aborted &&
        error instanceof LedgerbookError &&
        error.retryability !== 'ambiguous' &&
        !(error instanceof PausedError)
      ) {
        this.journal.append({
          t: 'failed',
          run: this.runId,
          step: spec.id,
          item: item.key,
          at: this.isoNow(),
          error: { code: error.code, message: error.message },
        });
      }
      throw error;
    }
    // Only what the item sent counts as applied (a step records an intent before each side effect): an item that
    // sent nothing — it waited for a run another operator started, which finished without it — is in sync now.
    if (sent.length === 0 && recorded.length === 0) {
      this.itemDone(spec, item, 'in-sync', outputs);
      return { key: item.key, outputs, changes: 0, status: 'in-sync' };
    }
    this.changes += plan.changes.length;
    this.itemDone(spec, item, 'applied', outputs);
    return { key: item.key, outputs, changes: plan.changes.length, status: 'applied' };
  }

  /**
   * Apply one item with the step's retry policy; intents of a failed attempt are reconciled before the next. Each
   * attempt takes a place in the step's pacer; backpressure from a service narrows the pacer and is retried
   * without using up the policy's attempts (up to MAX_PRESSURE_RETRIES), after the wait the service asked for.
   */
  private async apply(
    spec: StepSpec,
    kind: AnyStepKind,
    w: Record<string, unknown>,
    item: Item,
    firstPlan: ItemPlan,
    firstState: unknown,
    previous: { outputs: Outputs } | undefined,
    pacer: Pacer,
    /** receives the intents of every failed attempt: they stay in the journal until settled */
    recorded: Intent[],
    /** receives the intents of the attempt that succeeded */
    sent: Intent[],
  ): Promise<Outputs> {
    const { o } = this;
    let plan = firstPlan;
    let state = firstState;
    let counted = 1;
    let pressureRetries = 0;
    for (let attempt = 1; ; attempt++) {
      const intents: Intent[] = [];
      await pacer.acquire(o.signal);
      const startedAt = o.clock.now();
      const attemptSignal = timeoutSignal(o.signal, spec, item);
      const ctx = this.itemContext(spec, previous, w, item, attempt, intents, attemptSignal.signal, recorded);
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
      if (this.stopping.aborted) throw this.stopping.reason;
      let delayMs: number;
      if (pressed) {
        pressureRetries++;
        delayMs = pressureDelay(spec.retry, pressureRetries, pressure.retryAfterMs, this.random);
      } else {
        delayMs = retryDelay(spec.retry, counted, this.random);
        counted++;
      }
      this.retryEvent(spec, item.key, attempt, delayMs, failure);
      // a wait the service asked for also holds the step's other items back (the pacer); the jitter on top of it
      // and any other delay are this item's own
      await o.clock.sleep(delayMs, o.signal);
      const retryCtx = this.itemContext(spec, previous, w, item, attempt + 1, []);
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

  private itemDone(
    spec: StepSpec,
    item: Item,
    status: 'applied' | 'in-sync' | 'reconciled',
    outputs: Outputs,
  ): void {
    if (this.o.mode === 'run') {
      this.journal.append({
        t: 'done',
        run: this.runId,
        step: spec.id,
        item: item.key,
        at: this.isoNow(),
        status,
        outputs,
      });
    }
    this.o.events.emit({ type: 'item.done', step: spec.id, item: item.key, status, ...outputsOf(outputs) });
  }

  // ---------------------------------------------------------------------------------------------------------
  // Contexts and helpers

  private stepContext(
    spec: StepSpec,
    previous: { outputs: Outputs } | undefined,
    w: Record<string, unknown>,
    signal: AbortSignal = this.o.signal,
    item?: Item,
  ): StepContext {
    const { o } = this;
    return {
      runId: this.runId,
      stepId: spec.id,
      playbookName: o.playbook.name,
      targetName: o.targetName,
      mode: o.mode,
      untrusted: o.mode === 'plan' && o.untrusted === true,
      target: o.target,
      clients: o.clients,
      clock: o.clock,
      signal,
      siblingFailed: this.siblingFailed,
      approvals: o.approvals,
      baseDir: o.playbook.baseDir,
      actor: o.actor,
      previous,
      source: spec.with,
      fingerprint: this.fingerprint,
      outputDir: join(runDir(o.stateDir, o.playbook.name, o.targetName), 'steps', spec.id),
      concurrency: spec.concurrency ?? o.registry.get(spec.uses)?.concurrency ?? 1,
      log: (level, message, options) => {
        if (options === undefined || this.sayOnce(spec.id, options.once, item?.key ?? '')) {
          this.log(level, message, spec.id);
        }
      },
      laterStep: (kind) => {
        const steps = o.playbook.steps;
        const later = steps.slice(steps.findIndex((s) => s.id === spec.id) + 1);
        return later.find((s) => s.uses === kind && (s.if === undefined || s.if === true))?.id;
      },
      output: (stream, text) => this.output(spec.id, undefined, stream, text),
      progress: (message) =>
        o.events.emit({ type: 'step.progress', step: spec.id, done: 0, total: 0, message }),
      evaluate: (expression, extra) =>
        evaluateString(expression, {
          ...this.scope,
          ...(item && spec.forEach !== undefined ? { item: item.value } : {}),
          with: w,
          ...extra,
        }),
    };
  }

  private itemContext(
    spec: StepSpec,
    previous: { outputs: Outputs } | undefined,
    w: Record<string, unknown>,
    item: Item,
    attempt: number,
    intents: Intent[],
    signal: AbortSignal = this.o.signal,
    /** the item's intents still unsettled in the journal: one of them recorded again is not written again */
    unsettled: readonly Intent[] = [],
  ): ItemContext {
    return {
      ...this.stepContext(spec, previous, w, signal, item),
      item,
      attempt,
      output: (stream, text) => this.output(spec.id, item.key, stream, text),
      commandId: (purpose, inputs) =>
        commandIdOf({
          playbook: this.o.playbook.name,
          target: this.o.targetName,
          step: spec.id,
          item: item.key,
          purpose,
          inputs,
        }),
      deadline: spec.timeoutMs === undefined ? undefined : this.o.clock.now() + spec.timeoutMs,
      record: async (intent) => {
        if (this.o.mode !== 'run') throw new StepError(`step '${spec.id}' tried a side effect during plan`);
        intents.push(intent);
        // a retry of the same effect (the attempt before was refused outright): durable already
        const text = canonicalJson(intent);
        if (unsettled.some((i) => canonicalJson(i) === text)) return;
        await this.journal.appendDurable({
          t: 'intent',
          run: this.runId,
          step: spec.id,
          item: item.key,
          at: this.isoNow(),
          intent,
        });
      },
    };
  }

  private retryEvent(spec: StepSpec, item: string, attempt: number, delayMs: number, error: unknown): void {
    const info =
      error instanceof LedgerbookError ? errorInfo(error) : { code: 'LB_INTERNAL', message: String(error) };
    this.o.events.emit({
      type: 'retry',
      step: spec.id,
      item,
      attempt,
      delayMs: Math.round(delayMs),
      error: info,
    });
  }

  /**
   * Whether a `once` line of `step` is the first of its key (shown); a later one only records its item, which
   * sayOnceAgain names when the step ends.
   */
  private sayOnce(step: string, key: string, item: string): boolean {
    const said = this.saidOnce.get(step) ?? new Map<string, string[]>();
    this.saidOnce.set(step, said);
    const again = said.get(key);
    if (again === undefined) {
      said.set(key, []);
      return true;
    }
    if (item !== '') again.push(item);
    return false;
  }

  /** At the end of a step: one line per `once` key that more items said, naming them. */
  private sayOnceAgain(step: string): void {
    const said = this.saidOnce.get(step);
    this.saidOnce.delete(step);
    for (const items of said?.values() ?? []) {
      if (items.length > 0) this.log('info', `the same on ${listed(items)}`, step);
    }
  }

  private log(level: LogLevel, message: string, step?: string): void {
    this.o.events.emit({ type: 'log', level, message, ...(step ? { step } : {}) });
  }

  /** A command's output as one log event, as a terminal would have shown it (see shownText). */
  private output(step: string, item: string | undefined, stream: 'stdout' | 'stderr', text: string): void {
    const message = shownText(text);
    if (message === '') return;
    this.o.events.emit({ type: 'log', level: 'info', step, ...(item ? { item } : {}), stream, message });
  }

  private isoNow(): string {
    return new Date(this.o.clock.now()).toISOString();
  }
}

/**
 * Text as a terminal shows it: CRLF line ends as LF, a line a program rewrote with CR (a progress bar) as its last
 * version, no trailing blank lines.
 */
export function shownText(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const end = line.endsWith('\r') ? line.slice(0, -1) : line;
      return end.slice(end.lastIndexOf('\r') + 1);
    })
    .join('\n')
    .replace(/\n+$/, '');
}

interface ItemOutcome {
  key: string;
  outputs: Outputs;
  changes: number;
  status: 'applied' | 'in-sync' | 'reconciled' | 'skipped' | 'planned';
  /** plan mode: the changes it would make */
  planned?: Change[];
  /** plan mode: the outputs it says are known before it applies */
  known?: Outputs;
}

/** How far back the rate of a fan-out is measured. */
const RATE_WINDOW_MS = 15_000;

/**
 * Throttled `step.progress` events: every item for small steps, a few per second for big fan-outs, with the rate
 * of the last seconds (items finished by earlier invocations do not count) and the time left at that rate.
 */
class Progress {
  private done = 0;
  private lastEmit = 0;
  private readonly heap = new HeapGovernor();
  /** (time, items finished in this invocation) samples of the last RATE_WINDOW_MS */
  private readonly samples: Array<{ at: number; worked: number }> = [];
  private worked = 0;

  constructor(
    private readonly o: EngineOptions,
    private readonly step: string,
    private readonly total: number,
  ) {}

  tick(status: ItemOutcome['status']): void {
    this.done++;
    this.heap.tick(this.total);
    if (status !== 'skipped') this.worked++;
    const now = this.o.clock.now();
    if (this.total <= 100 || this.done === this.total || now - this.lastEmit >= 200) {
      this.lastEmit = now;
      this.o.events.emit({
        type: 'step.progress',
        step: this.step,
        done: this.done,
        total: this.total,
        ...this.pace(now),
      });
    }
  }

  private pace(now: number): { rate?: number; etaMs?: number } {
    this.samples.push({ at: now, worked: this.worked });
    while (this.samples.length > 2 && (this.samples[0] as { at: number }).at < now - RATE_WINDOW_MS)
      this.samples.shift();
    const first = this.samples[0] as { at: number; worked: number };
    const span = now - first.at;
    if (span < 1000 || this.worked === first.worked) return {};
    const rate = ((this.worked - first.worked) * 1000) / span;
    const left = this.total - this.done;
    return { rate: Math.round(rate * 10) / 10, etaMs: Math.round((left / rate) * 1000) };
  }
}

function timeoutSignal(
  parent: AbortSignal,
  spec: StepSpec,
  item: Item,
): { signal: AbortSignal; clear(): void } {
  if (spec.timeoutMs === undefined) return { signal: parent, clear: () => undefined };
  const controller = new AbortController();
  const what = `step '${spec.id}'${item.key ? ` item '${item.key}'` : ''}`;
  const timer = setTimeout(
    () => controller.abort(new TimeoutError(`${what} took longer than its timeout (${spec.timeoutMs} ms)`)),
    spec.timeoutMs,
  );
  const signal = AbortSignal.any([parent, controller.signal]);
  setMaxListeners(0, signal);
  return { signal, clear: () => clearTimeout(timer) };
}

/** Settle with the promise, or reject as soon as the signal aborts (a step that ignores its signal cannot hang the run). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  const reason = (): Error =>
    signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
  if (signal.aborted) return Promise.reject(reason());
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

/** An intent as the operator reads it: `start-workflow (node "node1", kind "Onboarding")`. */
function describeIntent(intent: Intent): string {
  const { action, ...fields } = intent;
  const details = Object.entries(fields).map(([name, value]) => `${name} ${JSON.stringify(value)}`);
  return details.length > 0 ? `${action} (${details.join(', ')})` : action;
}

/** A side effect that may or may not have happened: the run stops for the operator (exit 4). */
function isAmbiguous(error: unknown): boolean {
  return (
    error instanceof AmbiguousOutcomeError ||
    (error instanceof LedgerbookError && error.retryability === 'ambiguous')
  );
}

/** The outputs one element of a for_each step had in the earlier execution `previous` (`results.<key>`). */
function elementPrevious(
  previous: { outputs: Outputs } | undefined,
  key: string,
): { outputs: Outputs } | undefined {
  const results = previous?.outputs['results'];
  if (typeof results !== 'object' || results === null || Array.isArray(results)) return previous;
  const own = (results as Record<string, unknown>)[key];
  return typeof own === 'object' && own !== null && !Array.isArray(own)
    ? { outputs: own as Outputs }
    : previous;
}

/** Top-level `with` fields marked `x-lazy-expression`: left unresolved for the step to evaluate itself. */
/** Whether an expression in `values` reads a step's outputs (known only once that step ran). */
function readsSteps(values: readonly unknown[]): boolean {
  const visit = (value: unknown): boolean => {
    if (typeof value === 'string') return collectReferences(value).some((ref) => ref.root === 'steps');
    if (Array.isArray(value)) return value.some(visit);
    if (value !== null && typeof value === 'object') return Object.values(value).some(visit);
    return false;
  };
  return visit(values);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The first few of `keys`, for a line of text. */
function listed(keys: readonly string[], max = 5): string {
  return keys.length > max
    ? `${keys.slice(0, max).join(', ')} and ${keys.length - max} more`
    : keys.join(', ');
}

function typeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value;
}

export function errorInfo(error: LedgerbookError): EventOf<'step.done'>['error'] & object {
  return {
    code: error.code,
    message: error.message,
    ...(error.hint ? { hint: error.hint } : {}),
    ...(error instanceof AmbiguousOutcomeError ? { seen: error.seen } : {}),
    ...(error instanceof ValidationError ? { diagnostics: [...error.diagnostics] } : {}),
  };
}

/** The digest of groups and their items, keys and values, hashed one item at a time (100,000 items, no big text). */
function itemsDigest(groups: readonly Group[]): string {
  const hash = createHash('sha256');
  for (const group of groups) {
    hash.update(canonicalJson(group.with) ?? 'undefined');
    for (const item of group.items) hash.update(`\n${canonicalJson([item.key, item.value]) ?? ''}`);
  }
  return hash.digest('hex');
}

/** An item's outputs for its `item.done` event (what a distribution reports per recipient), when it has any. */
function outputsOf(outputs: Outputs): { outputs?: Outputs } {
  return Object.keys(outputs).length > 0 ? { outputs } : {};
}

function itemResultsOf(results: readonly ItemOutcome[]): ItemResult[] {
  return results.map((r) => ({
    key: r.key,
    outputs: r.outputs,
    status: r.status === 'planned' ? 'in-sync' : r.status,
  }));
}

/** The outputs of an item whose kind took them (`onItem`): one shared empty object, not 100,000. */
const NO_OUTPUTS: Outputs = Object.freeze({});

/** Retries of one item after backpressure: beyond this the error counts like any other. */
const MAX_PRESSURE_RETRIES = 100;

/**
 * What a step known after apply waits for, in words: `the outputs of 'a', 'b'`, and the secrets an untrusted
 * plan was not given (`secrets.NAME`, directly or through `vars.NAME`).
 */
function dependenciesText(on: readonly string[]): string {
  const steps = on.filter((d) => !d.includes('.')).map((d) => `'${d}'`);
  const others = on.filter((d) => d.includes('.'));
  const parts = [
    ...(steps.length > 0 ? [`the outputs of ${steps.join(', ')}`] : []),
    ...(others.length > 0
      ? [`${others.join(', ')} (an untrusted plan reads no secret of the playbook)`]
      : []),
  ];
  return parts.join(' and ');
}
