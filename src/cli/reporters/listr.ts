import type { EventOf, LedgerbookEvent } from '../../engine/events.js';
import { formatDiagnostics } from '../../playbook/format.js';
import { describeOutcome, knownAfterApply, unreportedError } from './outcome.js';
import { progressText, seconds, totalsText } from './style.js';

type Outcome =
  { kind: 'ok'; title: string } | { kind: 'skip'; message: string } | { kind: 'fail'; message: string };

interface Pending {
  promise: Promise<Outcome>;
  settled: boolean;
  resolve(outcome: Outcome): void;
}

function pending(): Pending {
  let resolve: (outcome: Outcome) => void = () => undefined;
  const promise = new Promise<Outcome>((r) => (resolve = r));
  const p: Pending = {
    promise,
    settled: false,
    resolve(outcome) {
      p.settled = true;
      resolve(outcome);
    },
  };
  return p;
}

/**
 * The task tree in a terminal (listr2's default renderer): one task per step, a done/total count on fan-out
 * steps, the last log lines under the running step. listr2 only renders; the engine drives every task through
 * its events. Loaded lazily so that non-terminal runs never pay for it.
 */
export async function listrReporter(write: (text: string) => void): Promise<{
  listener: (event: LedgerbookEvent) => void;
  finished(): Promise<void>;
}> {
  const { Listr } = await import('listr2');
  const outcomes = new Map<string, Pending>();
  // The engine may report for a step before listr2 starts its task (a quick step can start, log and finish in
  // one tick): lines and the latest title wait here and are handed over when the task starts.
  const tasks = new Map<string, { title: string; output: string }>();
  const buffered = new Map<string, { lines: string[]; title?: string }>();
  const bufferOf = (step: string): { lines: string[]; title?: string } => {
    let b = buffered.get(step);
    if (b === undefined) buffered.set(step, (b = { lines: [] }));
    return b;
  };
  /** a line that stays under the step (logs, planned changes, retries, the parity matrix) */
  const report = (step: string, line: string): void => {
    const task = tasks.get(step);
    if (task) task.output = line;
    else bufferOf(step).lines.push(line);
  };
  /** the step's live title: progress that the next message replaces */
  const retitle = (step: string, title: string): void => {
    const task = tasks.get(step);
    if (task) task.title = title;
    else bufferOf(step).title = title;
  };
  let running: Promise<unknown> = Promise.resolve();
  let outcome = '';
  let stepFailed = false;
  const loose: string[] = [];

  const start = (event: EventOf<'run.start'>): void => {
    write(
      `${event.mode === 'plan' ? 'plan' : event.resumed ? 'resume' : 'run'} ${event.playbook} on ${event.target}\n`,
    );
    for (const step of event.steps) outcomes.set(step.id, pending());
    const list = new Listr(
      event.steps.map((step) => ({
        title: `${step.name} \u001b[2m(${step.kind})\u001b[22m`,
        task: async (
          _ctx: unknown,
          task: { title: string; output: string; skip(message?: string): void },
        ) => {
          tasks.set(step.id, task);
          const early = buffered.get(step.id);
          buffered.delete(step.id);
          for (const line of early?.lines ?? []) task.output = line;
          if (early?.title !== undefined) task.title = early.title;
          const result = await (outcomes.get(step.id) as Pending).promise;
          if (result.kind === 'ok') task.title = result.title;
          else if (result.kind === 'skip') task.skip(result.message);
          else throw new Error(result.message);
        },
        // everything a step reports stays on screen once it is done
        rendererOptions: { outputBar: Infinity, persistentOutput: true },
      })),
      { concurrent: false, exitOnError: true },
    );
    // A failed step is reported through the engine's events; listr2's rejection carries nothing more.
    running = list.run().catch(() => undefined);
  };

  const settle = (step: string, result: Outcome): void => {
    const p = outcomes.get(step);
    if (p && !p.settled) p.resolve(result);
  };

  const listener = (event: LedgerbookEvent): void => {
    switch (event.type) {
      case 'run.start':
        start(event);
        break;
      case 'step.progress':
        if (event.message !== undefined) retitle(event.step, `${event.step} … ${event.message}`);
        else if (event.total > 1) retitle(event.step, `${event.step} ${progressText(event)}`);
        break;
      case 'step.plan':
        for (const c of event.changes) report(event.step, `~ ${c.item ? `${c.item}: ` : ''}${c.summary}`);
        break;
      case 'log':
        // a line outside any step is printed under the tree, once listr2 has stopped drawing
        if (event.step) report(event.step, event.message);
        else loose.push(event.message);
        break;
      case 'retry':
        report(
          event.step,
          `↻ attempt ${event.attempt} failed (${event.error.message}); retrying in ${seconds(event.delayMs)}`,
        );
        break;
      case 'step.done': {
        const time = seconds(event.durationMs);
        if (event.status === 'failed' || event.status === 'ambiguous') {
          stepFailed = true;
          const seen = event.error?.seen ? `\n  seen: ${event.error.seen}` : '';
          const hint = event.error?.hint ? `\n  hint: ${event.error.hint}` : '';
          const diagnostics = event.error?.diagnostics
            ? `\n${formatDiagnostics(event.error.diagnostics, { color: true }).trimEnd()}`
            : '';
          settle(event.step, {
            kind: 'fail',
            message: `${event.step}: ${event.error?.message ?? event.status}${seen}${hint}${diagnostics}`,
          });
        } else if (
          event.status === 'skipped' ||
          event.status === 'paused' ||
          event.status === 'interrupted'
        ) {
          const why =
            event.status === 'paused'
              ? (event.error?.message ?? 'paused')
              : event.status === 'interrupted'
                ? 'interrupted before it finished'
                : 'skipped (if: false)';
          settle(event.step, { kind: 'skip', message: `${event.step}: ${why}` });
        } else {
          const what =
            event.status === 'applied'
              ? `applied ${event.changes}`
              : event.status === 'planned'
                ? event.changes > 0
                  ? `${event.changes} to apply`
                  : knownAfterApply(event.items)
                : event.status;
          const totals = totalsText(event.outputs);
          settle(event.step, {
            kind: 'ok',
            title: `${event.step}: ${what} (${time})${totals === undefined ? '' : ` — ${totals}`}`,
          });
        }
        break;
      }
      case 'run.done':
        for (const step of outcomes.keys()) settle(step, { kind: 'skip', message: `${step}: not run` });
        outcome = [...unreportedError(event, stepFailed), describeOutcome(event)].join('\n');
        break;
      case 'version':
      case 'step.start':
      case 'item.done':
      case 'error':
        break;
    }
  };

  return {
    listener,
    async finished() {
      await running;
      for (const line of loose) write(`${line}\n`);
      if (outcome) write(`${outcome}\n`);
    },
  };
}
