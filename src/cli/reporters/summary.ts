import type { EventOf, LedgerbookEvent } from '../../engine/events.js';
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

/** Collects events and renders the Markdown summary of a run (`--summary FILE`, GITHUB_STEP_SUMMARY). */
export class SummaryReporter {
  private start: EventOf<'run.start'> | undefined;
  private end: EventOf<'run.done'> | undefined;
  private readonly steps = new Map<string, EventOf<'step.done'>>();
  private readonly changes = new Map<string, number>();

  readonly listener = (event: LedgerbookEvent): void => {
    if (event.type === 'run.start') this.start = event;
    else if (event.type === 'run.done') this.end = event;
    else if (event.type === 'step.done') this.steps.set(event.step, event);
    else if (event.type === 'step.plan')
      this.changes.set(event.step, (this.changes.get(event.step) ?? 0) + event.changes.length);
  };

  markdown(): string {
    const start = this.start;
    if (!start) return '';
    const lines = [
      `### ledgerbook ${start.mode}: ${start.playbook} on ${start.target}`,
      '',
      this.end ? describeOutcome(this.end) : 'The run did not finish.',
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
