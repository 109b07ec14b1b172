/**
 * The engine's words: how a command's output, an error, an intent and a list of keys read in events and logs.
 */
import { AmbiguousOutcomeError, LedgerbookError, ValidationError } from '../errors.js';
import type { EventOf } from './events.js';
import type { Intent } from '../steps/contract.js';

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

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The first few of `keys`, for a line of text. */
export function listed(keys: readonly string[], max = 5): string {
  return keys.length > max
    ? `${keys.slice(0, max).join(', ')} and ${keys.length - max} more`
    : keys.join(', ');
}

export function typeName(value: unknown): string {
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

/** An intent as the operator reads it: `start-workflow (node "node1", kind "Onboarding")`. */
export function describeIntent(intent: Intent): string {
  const { action, ...fields } = intent;
  const details = Object.entries(fields).map(([name, value]) => `${name} ${JSON.stringify(value)}`);
  return details.length > 0 ? `${action} (${details.join(', ')})` : action;
}

/** A side effect that may or may not have happened: the run stops for the operator (exit 4). */
export function isAmbiguous(error: unknown): boolean {
  return (
    error instanceof AmbiguousOutcomeError ||
    (error instanceof LedgerbookError && error.retryability === 'ambiguous')
  );
}
