/**
 * What the engine is given to run or plan a playbook (runPlaybook in run.ts), and what it answers.
 */
import type { Clients } from '../clients/clients.js';
import type { ExitCode, LedgerbookError } from '../errors.js';
import type { Playbook } from '../playbook/model.js';
import type { Target } from '../playbook/target.js';
import type { EventBus } from './event-bus.js';
import type { JournalRecord } from './journal.js';
import type { Masker } from './masker.js';
import type { PlanGuard, PlannedStep } from './saved-plan.js';
import type { StateCommand } from './state-command.js';
import type { StateBackend } from './state/backend.js';
import type { AnyStepKind, Clock } from '../steps/contract.js';

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
