/**
 * The step contract (../../docs/architecture.md "The step contract"). A step kind is one module that knows its
 * domain: what its `with` block looks like, how to read live state, what it would change, how to change it,
 * and how to tell, after a crash, whether a side effect it announced happened. The engine owns everything else:
 * retries, timeouts, checkpoints, fan-out, rendering and exit codes. A step never builds a client, reads
 * process.env, sleeps on its own clock or retries by itself.
 */
import type { Clients } from '../clients/clients.js';
import type { StaticFinding, StepDeclaration } from '../playbook/step-declaration.js';
import type { Target } from '../playbook/target.js';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type Outputs = Record<string, JsonValue>;

/** One unit of work of a step, checkpointed on its own. Keys are stable across runs and unique in the step. */
export interface Item<I = unknown> {
  key: string;
  value: I;
}

/** One change a step would make, for people (`summary`) and for `plan --json` (`action`, `details`). */
export interface Change {
  action: 'create' | 'update' | 'delete' | 'start' | 'run' | 'wait' | 'approve' | 'check';
  summary: string;
  /** structured details for machines; never a secret */
  details?: Record<string, JsonValue>;
}

/** The outcome of planning one item: no changes means in sync; `outputs` are known when in sync. */
export interface ItemPlan {
  changes: Change[];
  outputs?: Outputs;
  /**
   * with changes: the outputs already known before they are applied (values the playbook declares, such as the
   * members' node names); a plan lets later steps use them, and treats the others as known after apply
   */
  knownOutputs?: Outputs;
}

/**
 * The intent of a side effect, recorded durably in the journal before the side effect. `action` names it; the
 * other fields are what reconcile needs to find it again (a workflow kind and instance, a command id, a time).
 * Never a secret: the journal masks known secret values, but intents should carry identifiers only.
 */
export interface Intent {
  action: string;
  [field: string]: JsonValue;
}

export type Reconciliation =
  /** the announced side effect happened and finished: the item is done */
  | { status: 'done'; outputs?: Outputs }
  /** it did not happen, or it is safe to do again: plan and apply the item as usual */
  | { status: 'not-done'; note?: string }
  /** it cannot be told: the run stops with exit 4 and prints what was seen */
  | { status: 'ambiguous'; seen: string; hint?: string };

export interface Clock {
  now(): number;
  /** resolves after `ms`, rejects with the signal's reason when aborted */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface StepContext<X = unknown> {
  readonly runId: string;
  readonly stepId: string;
  /** the playbook's `name` and the target's (what the journal and deterministic command ids are keyed by) */
  readonly playbookName: string;
  readonly targetName: string;
  /** `plan` observes and plans only; `run` also applies */
  readonly mode: 'plan' | 'run';
  /**
   * `plan --untrusted`: the playbook may come from a change nobody reviewed yet. Observe without running a
   * command or contacting an address the playbook itself names; plan what cannot be told as a change that says
   * it was not evaluated. Absent: false.
   */
  readonly untrusted?: boolean;
  /** the resolved target; `undefined` when the playbook runs without one (core steps only) */
  readonly target: Target | undefined;
  /** typed service clients built from the target by the engine */
  readonly clients: Clients;
  readonly clock: Clock;
  /** aborted on the step's timeout or on Ctrl-C */
  readonly signal: AbortSignal;
  /**
   * Aborted when another item of this step failed for good, so the step cannot succeed in this run: an item that
   * is only waiting (polling for others) should stop at once; one in the middle of a side effect finishes it.
   */
  readonly siblingFailed: AbortSignal;
  /** step ids approved on this invocation with `--approve` */
  readonly approvals: ReadonlySet<string>;
  /** the working directory of the playbook file: relative paths in `with` resolve against it */
  readonly baseDir: string;
  /** who runs this (`user@host`, or the CI actor): recorded with approvals */
  readonly actor: string;
  /**
   * The outputs of the last finished execution of this step with the same resolved `with`, in any earlier run
   * of this playbook and target. Only for steps with no live state to observe (core.shell without guards).
   */
  readonly previous: { outputs: Outputs } | undefined;
  /**
   * The step's `with` block as the playbook wrote it, expressions unresolved: for a step that must keep values
   * apart from code (core.shell passes each expression of a script as an environment variable).
   */
  readonly source: Readonly<Record<string, unknown>>;
  /** digest of the playbook's text and the run's inputs: what an approval is given for */
  readonly fingerprint: string;
  /**
   * A folder for the files this step reports (a distribution's receipts), kept with the journal of this playbook
   * and target: `<state dir>/<playbook>@<target>/steps/<step id>`. The step creates it when it writes there.
   */
  readonly outputDir: string;
  /** the items this step applies at once at most (`concurrency:`, or the kind's default) */
  readonly concurrency: number;
  /**
   * What this execution of the step shares between its calls (StepKind.session): opened by the engine before the
   * step lists its items, closed when the step ends. `undefined` for a kind without one, and in `verify`.
   */
  readonly session: X;
  /**
   * The deterministic ledger command id of one effect of this step (src/engine/command-id.ts): from the playbook,
   * the target, the step, the item key (`item`; in an item's context its own key by default, else `""`),
   * `purpose` and `inputs` (the values that define the effect, never a secret). The same effect gets the same id
   * in every attempt and every run; the engine is the only place that derives it.
   */
  commandId(purpose: string, inputs: JsonValue, item?: string): string;
  /**
   * A line for the log. With `once`, lines of the same `once` key from several items of the step are said once:
   * the first is shown, and when the step ends one more line names the items that said the same.
   */
  log(level: LogLevel, message: string, options?: { once: string }): void;
  /**
   * The id of a step after this one in the playbook that certainly runs (no `if:`) and is of `kind`, if any: a
   * finding that step settles (rights it grants) is then news for the log, not a warning.
   */
  laterStep(kind: string): string | undefined;
  /**
   * what a command the step ran printed (core.shell): shown under the step in the terminal and plain output, kept
   * whole in `--json` and the summary; call it once per stream with all the text
   */
  output(stream: 'stdout' | 'stderr', text: string): void;
  /** report progress inside a long item (e.g. a workflow's current step) */
  progress(message: string): void;
  /**
   * Evaluate an expression the step keeps unresolved (a field marked `x-lazy-expression` in its schema),
   * with extra names in scope such as `response` for core.wait.
   */
  evaluate(expression: string, extraScope?: Record<string, unknown>): unknown;
}

export interface ItemContext<X = unknown> extends StepContext<X> {
  readonly item: Item;
  /** 1 on the first try; the engine retries transient failures with the step's policy */
  readonly attempt: number;
  /** make the intent of a side effect durable; call it right before the side effect, await it */
  record(intent: Intent): Promise<void>;
  /**
   * When the step's `timeout` ends this attempt (a `clock.now()` value), or undefined without a timeout: a step
   * that waits for an outside event stops polling before it and pauses the run instead (PausedError).
   */
  readonly deadline: number | undefined;
}

export interface ItemResult {
  key: string;
  outputs: Outputs;
  /** how the item ended in this invocation (`skipped`: finished by an earlier invocation of the same run) */
  status: 'applied' | 'in-sync' | 'reconciled' | 'skipped';
}

/**
 * A step's per-execution state (a distribution's recipients, holdings and receipts): the engine opens it before
 * the step lists its items, passes it to every call as `ctx.session`, and closes it when the step ends — finished,
 * failed, interrupted, or only planned — so that nothing of an execution outlives it in a module of the kind.
 */
export interface StepSession<X> {
  open(ctx: StepContext<undefined>): X;
  /** releases what the session holds (an unfinished file); after a finished step, after a failure, after a plan */
  close?(session: X): void | Promise<void>;
}

/** A kind: its declaration and its run-time part (`<kind>.ts`, which spreads the declaration into it). */
export interface StepKind<W = unknown, S = unknown, I = unknown, X = unknown> extends StepDeclaration<W> {
  /** default number of items applied at once (1 if omitted) */
  readonly concurrency?: number;
  /** what an execution of the step shares between its calls, owned by the engine (see StepSession) */
  readonly session?: StepSession<X>;

  /**
   * checks that read the services, without changing anything, what `check` cannot see offline (a recipient the
   * network does not know). The engine calls it before the run's first step for every step whose `with` is known
   * then, and right before the step for the others; a finding refuses the run (exit 65) before the step sends
   * anything. Not called for `for_each` steps.
   */
  verify?(ctx: StepContext<undefined>, w: W): Promise<StaticFinding[]>;
  /** fan-out steps: the items, with stable keys. Omitted: one item, key `""`, value `with` */
  items?(w: W, ctx: StepContext<X>): Item<I>[] | Promise<Item<I>[]>;
  /**
   * the top-level `with` fields `items()` reads (and nothing else of `with`): a plan that cannot resolve the
   * other fields yet (they read outputs of a step that will change first) still says which items there will be
   */
  readonly itemsFrom?: readonly string[];
  /** read live state; no side effect */
  observe(ctx: StepContext<X>, w: W): Promise<S>;
  /** pure: from observed state, what this item would change */
  plan(w: W, state: S, item: Item<I>): ItemPlan;
  /**
   * the part of the observed state a saved plan is held to (its digest must not change before `run plan.json`);
   * omitted: all of it. Leave out readings that change on every look (a latency) and decide nothing.
   */
  planState?(state: S): unknown;
  /** make the changes; `ctx.record(intent)` before each side effect; returns the item's outputs */
  apply(ctx: ItemContext<X>, w: W, item: Item<I>, plan: ItemPlan, state: S): Promise<Outputs>;
  /** after a crash or an ambiguous answer: did the recorded intents take effect? */
  reconcile(ctx: ItemContext<X>, w: W, item: Item<I>, intents: readonly Intent[]): Promise<Reconciliation>;
  /** fan-out steps: the step's outputs from all items; omitted: the single item's outputs */
  combine?(w: W, results: readonly ItemResult[]): Outputs;
  /**
   * `run` (and `plan`, for a kind with `preview`): each item as it finishes — applied, in sync, reconciled, or skipped because an earlier invocation
   * of the run finished it — with its outputs, for a kind that writes a report of its own item by item (a
   * distribution's receipts). The engine then keeps no item outputs for `finish` (its results carry `{}`), so a
   * 100,000-item step does not hold 100,000 outputs.
   */
  onItem?(ctx: StepContext<X>, w: W, item: Item<I>, result: ItemResult): void;
  /**
   * `run` only, once every item is done: work that belongs to the step as a whole (merging what the items left
   * behind, writing a receipts file) and the step's outputs, in place of `combine`. It runs again when a run is
   * resumed before the step finished, so it must be safe to repeat (observe, then act).
   */
  finish?(ctx: StepContext<X>, w: W, results: readonly ItemResult[], state: S | undefined): Promise<Outputs>;
  /**
   * `plan` only, for a kind with `finish` whose items are all in sync: the outputs `finish` would return, without
   * its side effects, so that the steps that read them are planned too (a distribution's receipts, which a report
   * reconciles). The engine gives `onItem` each item in sync first, as a run does. A report it writes for the plan
   * goes to a file of its own under `ctx.outputDir`, which each plan replaces, never to the run's.
   */
  preview?(ctx: StepContext<X>, w: W, results: readonly ItemResult[], state: S | undefined): Promise<Outputs>;
}

/** Erases the type parameters for the registry. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyStepKind = StepKind<any, any, any, any>;

export function defineStep<W, S, I = W, X = unknown>(kind: StepKind<W, S, I, X>): StepKind<W, S, I, X> {
  return kind;
}
