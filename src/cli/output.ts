import { LedgerbookError, ValidationError, exitCodeOf, type ExitCode } from '../errors.js';
import { EVENT_STRUCTURE, EVENTS_VERSION, type EventInput, type LedgerbookEvent } from '../engine/events.js';
import { Masker } from '../engine/masker.js';
import { formatDiagnostics } from '../playbook/format.js';
import { terminalSafe } from '../terminal-text.js';
import { hideUrlCredentials } from '../url-credentials.js';
import { DAMAGED_BUILD_HINT, damagedBuildProblem } from './damaged-build.js';
import { stderr, stdout, type StdioChannel } from './stdio.js';
import { VERSION } from './version.js';

export interface GlobalOptions {
  json?: boolean;
  color?: boolean;
  debug?: boolean;
  stateDir?: string;
  /** a PostgreSQL connection string (`--state`); else LEDGERBOOK_STATE, else the state dir */
  state?: string;
}

/** How to talk to this terminal, pipeline or program. */
export interface Output {
  json: boolean;
  /** human text: stdout, or stderr with --json */
  human: StdioChannel;
  /** human text with values in it (file names, run records, messages): written terminal-safe, URLs without credentials */
  say(text: string): void;
  color: boolean;
  /** the terminal's live view: only in an interactive terminal, never under CI, NO_COLOR, TERM=dumb or --json */
  interactive: boolean;
  debug: boolean;
  /** write an event as NDJSON to stdout (only with --json) */
  event(event: LedgerbookEvent): void;
}

export function makeOutput(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Output {
  const json = options.json === true;
  const human = json ? stderr : stdout;
  const noColor = (env['NO_COLOR'] ?? '') !== '' || env['TERM'] === 'dumb' || options.color === false;
  const ci = env['CI'] !== undefined && env['CI'] !== '' && env['CI'] !== 'false';
  return {
    json,
    human,
    say: (text) => void human.write(terminalSafe(hideUrlCredentials(text))),
    color: human.isTTY && !noColor,
    interactive: !json && stdout.isTTY && !ci && !noColor,
    debug: options.debug === true,
    event(event) {
      if (json) stdout.write(`${JSON.stringify(event)}\n`);
    },
  };
}

export function versionEvent(): LedgerbookEvent {
  return { type: 'version', time: new Date().toISOString(), events: EVENTS_VERSION, ledgerbook: VERSION };
}

/**
 * Report an error that ended a command: diagnostics with positions for bad input, message and hint for the
 * rest, a stack only for bugs or with --debug. Returns the exit code. Everything passes the masker (without the
 * run's, one that knows no secret still hides the credentials of URLs).
 */
export function reportError(thrown: unknown, out: Output, masker: Masker = new Masker()): ExitCode {
  // a module of the CLI that no longer loads is a damaged build, not a bug: say which file, and what to do
  const damaged = damagedBuildProblem(thrown);
  const error = damaged
    ? new LedgerbookError('LB_INTERNAL', damaged, { cause: thrown, hint: DAMAGED_BUILD_HINT })
    : thrown;
  const mask = (text: string): string => masker.mask(text);
  const code = exitCodeOf(error);
  const write = (text: string): void => stderr.write(`${mask(text)}\n`);
  if (error instanceof ValidationError) {
    write(formatDiagnostics(error.diagnostics, { color: out.color && stderr.isTTY }));
  } else if (error instanceof LedgerbookError) {
    write(`error: ${terminalSafe(error.message)}`);
    if (error.hint) write(`  hint: ${terminalSafe(error.hint)}`);
    if (out.debug && error.stack) write(error.stack);
  } else {
    write(`internal error: ${terminalSafe(error instanceof Error ? error.message : String(error))}`);
    write(
      '  this is a bug in ledgerbook; please report it with the output of the same command run with --debug',
    );
    if (out.debug && error instanceof Error && error.stack) write(error.stack);
  }
  if (out.json) {
    const input: EventInput = {
      type: 'error',
      code: error instanceof LedgerbookError ? error.code : 'LB_INTERNAL',
      message: error instanceof Error ? error.message : String(error),
      exitCode: code,
      ...(error instanceof LedgerbookError && error.hint ? { hint: error.hint } : {}),
      ...(error instanceof ValidationError ? { diagnostics: [...error.diagnostics] } : {}),
    };
    const event = { ...input, time: new Date().toISOString() } as LedgerbookEvent;
    out.event(masker.maskDeep(event, EVENT_STRUCTURE));
  }
  return code;
}
