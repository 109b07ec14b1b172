import type { EventOf, LedgerbookEvent } from '../../engine/events.js';
import { describeOutcome, unreportedError } from './outcome.js';
import { seconds } from './style.js';

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
  const titles = new Map<string, (title: string) => void>();
  const outputs = new Map<string, (line: string) => void>();
  let running: Promise<unknown> = Promise.resolve();
  let outcome = '';
  let stepFailed = false;

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
          titles.set(step.id, (title) => (task.title = title));
          outputs.set(step.id, (line) => (task.output = line));
          const result = await (outcomes.get(step.id) as Pending).promise;
          if (result.kind === 'ok') task.title = result.title;
          else if (result.kind === 'skip') task.skip(result.message);
          else throw new Error(result.message);
        },
        rendererOptions: { outputBar: 3, persistentOutput: false },
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
        if (event.message !== undefined) outputs.get(event.step)?.(event.message);
        else if (event.total > 1) titles.get(event.step)?.(`${event.step} ${event.done}/${event.total}`);
        break;
      case 'step.plan':
        for (const c of event.changes)
          outputs.get(event.step)?.(`~ ${c.item ? `${c.item}: ` : ''}${c.summary}`);
        break;
      case 'log':
        if (event.step) outputs.get(event.step)?.(event.message);
        break;
      case 'retry':
        outputs.get(event.step)?.(
          `↻ attempt ${event.attempt} failed (${event.error.message}); retrying in ${seconds(event.delayMs)}`,
        );
        break;
      case 'step.done': {
        const time = seconds(event.durationMs);
        if (event.status === 'failed' || event.status === 'ambiguous') {
          stepFailed = true;
          const seen = event.error?.seen ? `\n  seen: ${event.error.seen}` : '';
          const hint = event.error?.hint ? `\n  hint: ${event.error.hint}` : '';
          settle(event.step, {
            kind: 'fail',
            message: `${event.step}: ${event.error?.message ?? event.status}${seen}${hint}`,
          });
        } else if (event.status === 'skipped' || event.status === 'paused') {
          settle(event.step, {
            kind: 'skip',
            message: `${event.step}: ${event.status === 'paused' ? (event.error?.message ?? 'paused') : 'skipped (if: false)'}`,
          });
        } else {
          const what =
            event.status === 'applied'
              ? `applied ${event.changes}`
              : event.status === 'planned'
                ? `${event.changes} to apply`
                : event.status;
          settle(event.step, { kind: 'ok', title: `${event.step}: ${what} (${time})` });
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
      if (outcome) write(`${outcome}\n`);
    },
  };
}
