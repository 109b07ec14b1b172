import type { LedgerbookEvent } from '../../engine/events.js';

/** `--json`: one event per line on stdout; the first line is the `version` event. */
export function ndjsonReporter(write: (text: string) => void): (event: LedgerbookEvent) => void {
  return (event) => write(`${JSON.stringify(event)}\n`);
}
