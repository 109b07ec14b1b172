import type { EventOf, LedgerbookEvent } from '../../engine/events.js';
import { terminalSafe } from '../../terminal-text.js';
import { SUMMARY_OUTPUT_LINES, foldedLines } from './command-output.js';
import { describeOutcome, knownAfterApply } from './outcome.js';
import { seconds, totalsText } from './style.js';

const ICON: Record<EventOf<'step.done'>['status'], string> = {
  applied: '✅',
  'in-sync': '✅',
  skipped: '⏭️',
  resumed: '↩️',
  planned: '📝',
  failed: '❌',
  paused: '⏸️',
  ambiguous: '⚠️',
  interrupted: '⏹️',
};

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** Items of a step whose output the summary shows; the rest are counted. */
const SUMMARY_ITEMS = 50;
/** A step's output of more lines than this is folded. */
const FOLD_OVER_LINES = 10;

function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** `text` as a code span on one line, delimited by more backticks than it holds in a row. */
function codeSpan(text: string): string {
  const flat = text.replace(/[\r\n]+/g, ' ');
  const fence = '`'.repeat(longestRun(flat, '`') + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** Collects events and renders the Markdown summary of a run (`--summary FILE`, GITHUB_STEP_SUMMARY). */
export class SummaryReporter {
  private start: EventOf<'run.start'> | undefined;
  private end: EventOf<'run.done'> | undefined;
  private readonly steps = new Map<string, EventOf<'step.done'>>();
  private readonly changes = new Map<string, number>();
  /** per step, the commands' output (core.shell) of its first items, and how many items' output was left out */
  private readonly outputs = new Map<string, { shown: EventOf<'log'>[]; items: Set<string>; left: number }>();

  readonly listener = (event: LedgerbookEvent): void => {
    if (event.type === 'log' && event.stream !== undefined) this.output(event);
    else if (event.type === 'run.start') this.start = event;
    else if (event.type === 'run.done') this.end = event;
    else if (event.type === 'step.done') this.steps.set(event.step, event);
    else if (event.type === 'step.plan')
      this.changes.set(event.step, (this.changes.get(event.step) ?? 0) + event.changes.length);
  };

  private output(event: EventOf<'log'>): void {
    const step = event.step ?? '';
    let kept = this.outputs.get(step);
    if (kept === undefined) this.outputs.set(step, (kept = { shown: [], items: new Set(), left: 0 }));
    const item = event.item ?? '';
    if (!kept.items.has(item) && kept.items.size >= SUMMARY_ITEMS) {
      kept.left++;
      return;
    }
    kept.items.add(item);
    kept.shown.push({
      ...event,
      // like the terminal: no escape sequence of the command's reaches the reader
      message: terminalSafe(
        foldedLines(event.message, SUMMARY_OUTPUT_LINES, (n) => `… ${n} more lines …`).join('\n'),
      ),
    });
  }

  /**
   * What the commands of each step printed: a code block per command and stream, under the step and item; folded
   * (`<details>`) where a step printed more than a few lines, so the table stays in view.
   */
  private outputSection(): string[] {
    const lines: string[] = [];
    for (const [step, kept] of this.outputs) {
      const blocks: string[] = [];
      for (const event of kept.shown) {
        const item = event.item ? ` ${codeSpan(event.item)}` : '';
        const fence = '`'.repeat(Math.max(3, longestRun(event.message, '`') + 1));
        blocks.push(
          '',
          `**${cell(step)}**${item} ${event.stream}:`,
          '',
          `${fence}text`,
          event.message,
          fence,
        );
      }
      if (kept.left > 0)
        blocks.push('', `**${cell(step)}**: the output of ${kept.left} more items is in --json`);
      const printed = kept.shown.reduce((n, e) => n + e.message.split('\n').length, 0);
      if (printed <= FOLD_OVER_LINES) lines.push(...blocks);
      else
        lines.push(
          '',
          `<details><summary>${cell(step)}: what its commands printed</summary>`,
          ...blocks,
          '',
          '</details>',
        );
    }
    return lines;
  }

  markdown(): string {
    const start = this.start;
    if (!start) return '';
    const lines = [
      `### ledgerbook ${start.mode}: ${start.playbook} on ${start.target}`,
      '',
      this.end ? describeOutcome(this.end, start.mode === 'plan') : 'The run did not finish.',
      '',
      '| step | kind | result | changes | time |',
      '|---|---|---|---:|---:|',
    ];
    for (const step of start.steps) {
      const done = this.steps.get(step.id);
      const result = !done
        ? 'not reached'
        : done.status === 'planned' && done.changes === 0
          ? `${ICON.planned} ${knownAfterApply(done.items)}`
          : `${ICON[done.status]} ${done.status}`;
      const changes = done?.changes ?? this.changes.get(step.id) ?? 0;
      lines.push(
        `| ${cell(step.id)} | ${cell(step.kind)} | ${result} | ${changes} | ${done ? seconds(done.durationMs) : ''} |`,
      );
    }
    for (const step of this.steps.values()) {
      const totals = totalsText(step.outputs);
      if (totals !== undefined) lines.push('', `**${cell(step.step)}**: ${cell(totals)}`);
    }
    lines.push(...this.outputSection());
    const failed = [...this.steps.values()].filter((s) => s.error);
    for (const step of failed) {
      lines.push('', `**${cell(step.step)}**: ${step.error?.message ?? ''}`);
      if (step.error?.seen) lines.push('', `seen: ${step.error.seen}`);
      if (step.error?.hint) lines.push('', `hint: ${step.error.hint}`);
    }
    lines.push('', `run \`${this.end?.run ?? ''}\`, exit code ${this.end?.exitCode ?? ''}`, '');
    return lines.join('\n');
  }
}
