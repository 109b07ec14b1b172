import type { Diagnostic } from './diagnostics.js';

/**
 * One error base class, one subclass per failure family, a stable `code` per failure, and one table that maps
 * codes to exit codes. Nothing else in the project decides an exit code.
 */

/** Exit codes: each means one thing (README "Exit codes" and `ledgerbook --help` print this table). */
export const EXIT = {
  /** success, or nothing to do */
  OK: 0,
  /** a step failed, or a saved plan no longer holds */
  STEP_FAILED: 1,
  /** `plan --detailed-exitcode`: something would change */
  CHANGES: 2,
  /** paused: waiting for an approval or an outside event; run again to resume */
  PAUSED: 3,
  /** stopped for an operator decision: the outcome of a side effect is ambiguous */
  AMBIGUOUS: 4,
  /** usage error: unknown command or flag, missing argument */
  USAGE: 64,
  /**
   * invalid playbook, target, input or saved plan, or a file named on the command line that cannot be read or
   * written; nothing ran
   */
  INVALID: 65,
  /** internal error: a bug in ledgerbook (rerun with --debug and report it), or its build damaged (src/cli/damaged-build.ts) */
  INTERNAL: 70,
  /** another run holds the lock of this (playbook, target), or of the state dir's sandbox; try again later */
  LOCKED: 75,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODE_HELP: ReadonlyArray<readonly [ExitCode, string]> = [
  [EXIT.OK, 'success, or nothing to do'],
  [EXIT.STEP_FAILED, 'a step failed, or a saved plan no longer holds'],
  [EXIT.CHANGES, 'plan --detailed-exitcode: something would change'],
  [EXIT.PAUSED, 'paused for an approval or an outside event; run the same command again to resume'],
  [EXIT.AMBIGUOUS, 'stopped for an operator decision: a side effect has an ambiguous outcome (see output)'],
  [EXIT.USAGE, 'usage error'],
  [
    EXIT.INVALID,
    'invalid playbook, target, input or saved plan, or an unusable file argument; nothing was sent',
  ],
  [
    EXIT.INTERNAL,
    'internal error (a bug): rerun with --debug and report it; or a damaged build (it names the file)',
  ],
  [EXIT.LOCKED, 'another run holds the lock of this playbook and target, or of the state dir’s sandbox'],
];

export type ErrorCode =
  | 'LB_USAGE'
  | 'LB_PLAYBOOK_INVALID'
  | 'LB_TARGET_INVALID'
  | 'LB_INPUT_INVALID'
  | 'LB_STEP_FAILED'
  | 'LB_TIMEOUT'
  | 'LB_SERVICE'
  | 'LB_OUTCOME_AMBIGUOUS'
  | 'LB_PAUSED'
  | 'LB_LOCKED'
  | 'LB_STATE'
  | 'LB_PLAN_STALE'
  | 'LB_PLAN_REFUSED'
  | 'LB_INTERNAL';

const EXIT_BY_CODE: Record<ErrorCode, ExitCode> = {
  LB_USAGE: EXIT.USAGE,
  LB_PLAYBOOK_INVALID: EXIT.INVALID,
  LB_TARGET_INVALID: EXIT.INVALID,
  LB_INPUT_INVALID: EXIT.INVALID,
  LB_STEP_FAILED: EXIT.STEP_FAILED,
  LB_TIMEOUT: EXIT.STEP_FAILED,
  LB_SERVICE: EXIT.STEP_FAILED,
  LB_OUTCOME_AMBIGUOUS: EXIT.AMBIGUOUS,
  LB_PAUSED: EXIT.PAUSED,
  LB_LOCKED: EXIT.LOCKED,
  LB_STATE: EXIT.STEP_FAILED,
  LB_PLAN_STALE: EXIT.STEP_FAILED,
  LB_PLAN_REFUSED: EXIT.INVALID,
  LB_INTERNAL: EXIT.INTERNAL,
};

export function exitCodeOf(error: unknown): ExitCode {
  return error instanceof LedgerbookError ? error.exitCode : EXIT.INTERNAL;
}

/**
 * How the engine may treat a failure: `transient` may be retried by the step's retry policy, `permanent` fails
 * the step at once, `ambiguous` means a side effect may or may not have happened: the run stops (exit 4).
 */
export type Retryability = 'transient' | 'permanent' | 'ambiguous';

/**
 * A service that says it is overloaded or contended (429 RESOURCE_EXHAUSTED, ABORTED contention): the engine
 * slows the whole step down (fewer items at once, nothing new before `retryAfterMs`) instead of only this item.
 */
export interface Backpressure {
  /** how long the service asks to wait before the next request, when it says */
  retryAfterMs?: number | undefined;
}

export interface LedgerbookErrorOptions {
  cause?: unknown;
  /** what to do next, shown under the message */
  hint?: string | undefined;
  retryability?: Retryability;
  /** only with `transient`: the service is overloaded or contended */
  backpressure?: Backpressure | undefined;
}

export class LedgerbookError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly retryability: Retryability;
  readonly backpressure: Backpressure | undefined;

  constructor(code: ErrorCode, message: string, options: LedgerbookErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = options.hint;
    this.retryability = options.retryability ?? 'permanent';
    this.backpressure = this.retryability === 'transient' ? options.backpressure : undefined;
  }

  /** by code, except that an outcome that may or may not have happened always stops for the operator (4) */
  get exitCode(): ExitCode {
    return this.retryability === 'ambiguous' ? EXIT.AMBIGUOUS : EXIT_BY_CODE[this.code];
  }
}

export class UsageError extends LedgerbookError {
  constructor(message: string, hint?: string) {
    super('LB_USAGE', message, { hint });
  }
}

/** Playbook, target or input refused before anything ran; carries every finding, each with its position. */
export class ValidationError extends LedgerbookError {
  readonly diagnostics: readonly Diagnostic[];

  constructor(
    code: 'LB_PLAYBOOK_INVALID' | 'LB_TARGET_INVALID' | 'LB_INPUT_INVALID',
    diagnostics: readonly Diagnostic[],
  ) {
    const n = diagnostics.length;
    super(code, `${n} problem${n === 1 ? '' : 's'} found; nothing was run`);
    this.diagnostics = diagnostics;
  }
}

/**
 * A file named on the command line (a saved plan, a secrets file, an output path such as --summary) that cannot
 * be read, is not what it should be, or cannot be written: refused before anything runs, like a bad playbook.
 */
export class FileArgumentError extends LedgerbookError {
  constructor(message: string, hint?: string, cause?: unknown) {
    super('LB_INPUT_INVALID', message, { hint, cause });
  }
}

/** A step failed for a reason of its own domain (an assertion, a refused guard, a precondition). */
export class StepError extends LedgerbookError {
  constructor(message: string, options: LedgerbookErrorOptions = {}) {
    super('LB_STEP_FAILED', message, options);
  }
}

export class TimeoutError extends LedgerbookError {
  constructor(message: string, options: LedgerbookErrorOptions = {}) {
    super('LB_TIMEOUT', message, { retryability: 'transient', ...options });
  }
}

/**
 * A service answered with an error or could not be reached. Raised only by src/clients; carries the service,
 * method, path, status and the service's own error text, never a token or a request body.
 */
export class ServiceError extends LedgerbookError {
  readonly service: string;
  readonly method: string;
  readonly path: string;
  readonly status: number | undefined;
  readonly serviceMessage: string | undefined;
  /** the service's parsed error body (e.g. the DPM's `missing_edges`), for steps that act on it; never printed */
  readonly body: unknown;

  constructor(
    fields: {
      service: string;
      method: string;
      path: string;
      status?: number | undefined;
      serviceMessage?: string | undefined;
      retryability: Retryability;
      hint?: string | undefined;
      body?: unknown;
      backpressure?: Backpressure | undefined;
    },
    cause?: unknown,
  ) {
    const where = `${fields.service} ${fields.method} ${fields.path}`;
    const what =
      fields.status === undefined
        ? (fields.serviceMessage ?? 'no response')
        : `${fields.status}${fields.serviceMessage ? `: ${fields.serviceMessage}` : ''}`;
    super('LB_SERVICE', `${where} → ${what}`, {
      cause,
      hint: fields.hint,
      retryability: fields.retryability,
      backpressure: fields.backpressure,
    });
    this.service = fields.service;
    this.method = fields.method;
    this.path = fields.path;
    this.status = fields.status;
    this.serviceMessage = fields.serviceMessage;
    this.body = fields.body;
  }
}

/** The outcome of a side effect cannot be told; the run stops (exit 4) and says what was seen. */
export class AmbiguousOutcomeError extends LedgerbookError {
  readonly seen: string;

  constructor(message: string, seen: string, hint?: string, cause?: unknown) {
    super('LB_OUTCOME_AMBIGUOUS', message, { hint, retryability: 'ambiguous', cause });
    this.seen = seen;
  }
}

/** The run waits for an approval or an outside event (exit 3); running the same command again resumes it. */
export class PausedError extends LedgerbookError {
  constructor(message: string, hint?: string) {
    super('LB_PAUSED', message, { hint });
  }
}

export class LockedError extends LedgerbookError {
  constructor(message: string, hint: string) {
    super('LB_LOCKED', message, { hint });
  }
}

/** The state directory or journal is unreadable or inconsistent. */
export class StateError extends LedgerbookError {
  constructor(message: string, hint?: string, cause?: unknown) {
    super('LB_STATE', message, { hint, cause });
  }
}

/** `run plan.json`: the playbook, its inputs, its target or the live state changed since the plan was made. */
export class PlanStaleError extends LedgerbookError {
  constructor(message: string, hint: string) {
    super('LB_PLAN_STALE', message, { hint });
  }
}

/**
 * A saved plan that is not applied, shown or trusted as it is: damaged or edited, of another format version,
 * made for review only (`plan --untrusted`), or not signed with the key this job holds. Nothing it names was
 * read, contacted or run.
 */
export class PlanRefusedError extends LedgerbookError {
  constructor(message: string, hint: string) {
    super('LB_PLAN_REFUSED', message, { hint });
  }
}
