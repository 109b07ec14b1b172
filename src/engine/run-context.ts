/**
 * What the walks of one invocation share: the options, the journal, the expression scope, the run's id and
 * counters, the step's session, and the contexts a step's calls get (StepContext, ItemContext). Both walks — the
 * plan walk and the apply walk — and the item executor read and write the run through it.
 */
import { join } from 'node:path';
import { LedgerbookError, StepError } from '../errors.js';
import { evaluateString, type Scope } from '../playbook/expressions/index.js';
import type { StepSpec } from '../playbook/model.js';
import { commandIdOf } from './command-id.js';
import { canonicalJson, digestOf, sha256 } from '../digest.js';
import type { RunJournal } from './journal.js';
import { withRetry, type RetryOptions } from './retry.js';
import { stateCommand, type StateCommand } from './state-command.js';
import { runDir } from './state-dir.js';
import type { EngineOptions } from './engine-options.js';
import { errorInfo, listed, shownText } from './run-text.js';
import type {
  AnyStepKind,
  Intent,
  Item,
  ItemContext,
  JsonValue,
  LogLevel,
  Outputs,
  StepContext,
} from '../steps/contract.js';

/** The session of the step being executed (StepKind.session), while it is open. */
interface OpenSession {
  step: string;
  value: unknown;
}

export class RunContext {
  readonly scope: Scope;
  runId = '';
  /** changes applied (run) or that would be applied (plan) */
  changes = 0;
  readonly random: () => number;
  readonly fingerprint: string;
  readonly inputsDigest: string;
  readonly stopping: AbortSignal;
  /** the items being worked on now (`step` or `step item`), for the message of a stop */
  readonly inFlight = new Set<string>();
  /** the current step's: aborted when one of its items failed for good (see StepContext.siblingFailed) */
  siblingFailed: AbortSignal = new AbortController().signal;
  /** per step running, the `once` keys of ctx.log said so far and the items that said them again */
  private readonly saidOnce = new Map<string, Map<string, string[]>>();
  private session: OpenSession | undefined;

  constructor(
    readonly o: EngineOptions,
    readonly journal: RunJournal,
  ) {
    this.random = o.random ?? Math.random;
    this.stopping = o.stopping ?? new AbortController().signal;
    this.inputsDigest = digestOf(o.inputs);
    this.fingerprint = sha256(`${o.playbook.digest}\n${this.inputsDigest}`);
    this.scope = {
      inputs: o.inputs,
      vars: {},
      steps: {},
      secrets: o.secrets,
      env: o.env,
      target: o.target ? { ...o.target, file: undefined } : undefined,
    };
  }

  /** The `ledgerbook state …` commands this run tells the operator to run. */
  get command(): StateCommand {
    return (
      this.o.stateCommand ?? stateCommand({ playbook: this.o.playbook.file, target: this.o.target?.file })
    );
  }

  /** The retry of a read or a step-level call (observe, reconcile, finish) under the step's policy. */
  retry<T>(spec: StepSpec, item: string, fn: () => Promise<T>): Promise<T> {
    return withRetry(fn, this.retryOptions(spec, item));
  }

  retryOptions(spec: StepSpec, item: string): RetryOptions {
    return {
      policy: spec.retry,
      clock: this.o.clock,
      signal: this.o.signal,
      random: this.random,
      onRetry: (info) => this.retryEvent(spec, item, info.attempt, info.delayMs, info.error),
    };
  }

  retryEvent(spec: StepSpec, item: string, attempt: number, delayMs: number, error: unknown): void {
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

  // ---------------------------------------------------------------------------------------------------------
  // The step's session

  /**
   * Runs `body` with the kind's session open for the step (StepKind.session): opened before, closed after —
   * whether the body finished, failed or was interrupted. A failure to close does not hide the body's own.
   */
  async withSession<T>(spec: StepSpec, kind: AnyStepKind, body: () => Promise<T>): Promise<T> {
    const definition = kind.session;
    if (definition === undefined) return body();
    const session: unknown = definition.open({
      ...this.stepContext(spec, undefined, {}),
      session: undefined,
    });
    this.session = { step: spec.id, value: session };
    let outcome: { value: T } | { error: unknown };
    try {
      outcome = { value: await body() };
    } catch (error) {
      outcome = { error };
    }
    this.session = undefined;
    if ('error' in outcome) {
      // the body's failure is what the run reports; a session that cannot close after it adds nothing to it
      await Promise.resolve(definition.close?.(session)).catch(() => undefined);
      throw outcome.error;
    }
    await definition.close?.(session);
    return outcome.value;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Contexts

  stepContext(
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
      session: this.session?.step === spec.id ? this.session.value : undefined,
      commandId: (purpose, inputs, itemKey = '') => this.commandId(spec, itemKey, purpose, inputs),
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

  itemContext(
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
      commandId: (purpose, inputs, itemKey = item.key) => this.commandId(spec, itemKey, purpose, inputs),
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

  /** The one place a ledger command id is derived (command-id.ts): steps ask for it through their context. */
  private commandId(spec: StepSpec, item: string, purpose: string, inputs: JsonValue): string {
    return commandIdOf({
      playbook: this.o.playbook.name,
      target: this.o.targetName,
      step: spec.id,
      item,
      purpose,
      inputs,
    });
  }

  // ---------------------------------------------------------------------------------------------------------
  // What the run says

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
  sayOnceAgain(step: string): void {
    const said = this.saidOnce.get(step);
    this.saidOnce.delete(step);
    for (const items of said?.values() ?? []) {
      if (items.length > 0) this.log('info', `the same on ${listed(items)}`, step);
    }
  }

  log(level: LogLevel, message: string, step?: string): void {
    this.o.events.emit({ type: 'log', level, message, ...(step ? { step } : {}) });
  }

  /** A command's output as one log event, as a terminal would have shown it (see shownText). */
  private output(step: string, item: string | undefined, stream: 'stdout' | 'stderr', text: string): void {
    const message = shownText(text);
    if (message === '') return;
    this.o.events.emit({ type: 'log', level: 'info', step, ...(item ? { item } : {}), stream, message });
  }

  isoNow(): string {
    return new Date(this.o.clock.now()).toISOString();
  }
}
