import type { EventOf, LedgerbookEvent } from '../../engine/events.js';
import { formatDiagnostics } from '../../playbook/format.js';
import { ITEMS_WITH_OUTPUT, PLAIN_OUTPUT_LINES, foldedLines } from './command-output.js';
import { describeOutcome, knownAfterApply, unreportedError } from './outcome.js';
import { BIG_FANOUT, progressText, seconds, style as makeStyle, totalsText } from './style.js';

/** Progress of a big fan-out is printed at every 10 %, and at least this often while it runs. */
const PROGRESS_EVERY_MS = 10_000;

/**
 * Line-by-line text for logs and pipelines: no cursor movement, no spinners. Progress of big fan-outs (20 items
 * or more) is printed at every 10 % and every 10 s, with its rate and time left, so a 10,000-item step does not
 * flood the log; their planned changes are listed by `plan`, and by `run --verbose`, not by `run`.
 */
export function plainReporter(
  write: (text: string) => void,
  color: boolean,
  verbose = false,
): (event: LedgerbookEvent) => void {
  const s = makeStyle(color);
  const lastDecile = new Map<string, number>();
  const lastPrinted = new Map<string, number>();
  const big = new Set<string>();
  let planning = false;
  const line = (text: string): void => write(`${text}\n`);
  let stepFailed = false;
  // a big fan-out shows the output of its first few items, then says where the rest is
  const shownItems = new Map<string, Set<string>>();
  const noted = new Set<string>();
  const commandOutput = (event: EventOf<'log'>): void => {
    const step = event.step ?? '';
    const item = event.item ?? '';
    if (big.has(step)) {
      const shown = shownItems.get(step) ?? new Set<string>();
      shownItems.set(step, shown);
      if (!shown.has(item) && shown.size >= ITEMS_WITH_OUTPUT) {
        if (!noted.has(step)) line(s.dim('  … the output of the other items is in --json'));
        noted.add(step);
        return;
      }
      shown.add(item);
    }
    const gutter = `  ${event.item ? `${event.item} ` : ''}${event.stream === 'stderr' ? '!' : '│'} `;
    const lines = foldedLines(
      event.message,
      PLAIN_OUTPUT_LINES,
      (n) => `… ${n} more lines (--json has every line)`,
    );
    for (const text of lines) line(`${s.dim(gutter)}${text}`);
  };
  return (event) => {
    switch (event.type) {
      case 'run.start':
        planning = event.mode === 'plan';
        line(
          s.bold(
            `${event.mode === 'plan' ? 'plan' : event.resumed ? 'resume' : 'run'} ${event.playbook} (${event.file}) on ${event.target}` +
              (event.mode === 'run' ? ` — run ${event.run}` : ''),
          ),
        );
        break;
      case 'step.start':
        if (event.items >= BIG_FANOUT) big.add(event.step);
        line(`● ${event.step} ${s.dim(`(${event.kind}${event.items > 1 ? `, ${event.items} items` : ''})`)}`);
        break;
      case 'step.plan':
        if (!planning && !verbose && big.has(event.step)) break;
        for (const change of event.changes)
          line(`  ${s.warn('~')} ${change.item ? `${change.item}: ` : ''}${change.summary}`);
        break;
      case 'step.progress':
        if (event.message !== undefined) line(s.dim(`  … ${event.message}`));
        else if (event.total >= BIG_FANOUT) {
          const decile = Math.floor((event.done * 10) / event.total);
          const now = Date.parse(event.time);
          const due = now - (lastPrinted.get(event.step) ?? now) >= PROGRESS_EVERY_MS;
          if (decile !== lastDecile.get(event.step) || due) {
            lastDecile.set(event.step, decile);
            lastPrinted.set(event.step, now);
            line(s.dim(`  ${progressText(event)}`));
          }
        }
        break;
      case 'retry':
        line(
          s.warn(
            `  ↻ ${event.item ? `${event.item}: ` : ''}attempt ${event.attempt} failed (${event.error.message}); retrying in ${seconds(event.delayMs)}`,
          ),
        );
        break;
      case 'log': {
        if (event.stream !== undefined) {
          commandOutput(event);
          break;
        }
        const text = `  ${event.message}`;
        line(
          event.level === 'error'
            ? s.bad(text)
            : event.level === 'warn'
              ? s.warn(text)
              : event.level === 'debug'
                ? s.dim(text)
                : text,
        );
        break;
      }
      case 'step.done': {
        const mark =
          event.status === 'failed' || event.status === 'ambiguous'
            ? s.bad('✖')
            : event.status === 'paused' || event.status === 'interrupted'
              ? s.warn('‖')
              : s.ok('✔');
        const what =
          event.status === 'applied'
            ? `applied ${event.changes} change${event.changes === 1 ? '' : 's'}`
            : event.status === 'planned'
              ? event.changes > 0
                ? `${event.changes} change${event.changes === 1 ? '' : 's'} to apply`
                : knownAfterApply(event.items)
              : event.status === 'interrupted'
                ? 'interrupted before it finished'
                : event.status;
        line(`${mark} ${event.step}: ${what} ${s.dim(`(${seconds(event.durationMs)})`)}`);
        const totals = totalsText(event.outputs);
        if (totals !== undefined) line(`  ${totals}`);
        if (event.error) {
          stepFailed = true;
          line(s.bad(`  ${event.error.message}`));
          if (event.error.diagnostics)
            write(formatDiagnostics(event.error.diagnostics, { color }).replace(/^/gm, '  '));
          if (event.error.seen) line(`  seen: ${event.error.seen}`);
          if (event.error.hint) line(`  hint: ${event.error.hint}`);
        }
        break;
      }
      case 'run.done':
        for (const text of unreportedError(event, stepFailed)) line(s.bad(text));
        line(s.bold(describeOutcome(event, planning)));
        break;
      case 'error':
      case 'version':
      case 'item.done':
      case 'status':
        break;
    }
  };
}
