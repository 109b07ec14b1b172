import type { EventOf, LedgerbookEvent } from '../../engine/events.js';
import { formatDiagnostics } from '../../playbook/format.js';
import { describeOutcome, knownAfterApply, unreportedError } from './outcome.js';
import { StepView } from './progress-view.js';
import { seconds, style, totalsText } from './style.js';

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

/** Events redraw the tree at most this often. */
const FRAME_MS = 100;
/** While items are in flight and nothing else happens, their ages are redrawn this often. */
const AGES_MS = 1000;
/** Columns listr2 takes from an output line: two levels of indentation and the line's icon. */
const OUTPUT_MARGIN = 6;

/** The part of listr2's task wrapper this reporter uses. */
interface Task {
  title: string;
  output: string;
  skip(message?: string): void;
}

/**
 * The task tree in a terminal (listr2's default renderer): one task per step, and under the running step a view
 * whose size does not depend on its items (src/cli/reporters/progress-view.ts): the pinned progress line as the
 * task's title, the items in flight and the last lines it reported as its output. Events only update the views;
 * the tree is redrawn at most every FRAME_MS, so a 100,000-item step costs the terminal what a 10-item one does.
 * Once a step is done its title says how it ended and the lines it kept stay under it. listr2 only renders; the
 * engine drives every task through its events. Loaded lazily so that non-terminal runs never pay for it.
 */
export async function listrReporter(
  write: (text: string) => void,
  columns: () => number,
): Promise<{
  listener: (event: LedgerbookEvent) => void;
  finished(): Promise<void>;
}> {
  const { Listr } = await import('listr2');
  const s = style(true);
  let running: Promise<unknown> = Promise.resolve();
  let planning = false;
  let outcome = '';
  let stepFailed = false;
  /** lines of the run itself while no step runs: printed under the tree once listr2 has stopped drawing */
  const loose: string[] = [];
  const outcomes = new Map<string, Pending>();
  const views = new Map<string, StepView>();
  // The engine may report for a step before listr2 starts its task (a quick step can start, log and finish in
  // one tick): its view collects it, and is drawn when the task starts.
  const tasks = new Map<string, Task>();
  /** what each task shows now, so that an unchanged view is not handed to listr2 (each change redraws) */
  const shown = new Map<string, { title: string; output: string }>();
  /** the step that runs now: lines of the run itself (a stop's notice) go under it */
  let current: string | undefined;
  const dirty = new Set<string>();
  let frame: NodeJS.Timeout | undefined;
  let ages: NodeJS.Timeout | undefined;

  const draw = (step: string): void => {
    const task = tasks.get(step);
    const view = views.get(step);
    if (!task || !view) return;
    const was = shown.get(step) ?? { title: task.title, output: '' };
    const title = view.title() ?? was.title;
    const output = view.live(Math.max(20, columns() - OUTPUT_MARGIN), Date.now()).join('\n');
    if (output !== was.output) task.output = output;
    if (title !== was.title) task.title = title;
    shown.set(step, { title, output });
  };
  const flush = (): void => {
    frame = undefined;
    for (const step of dirty) draw(step);
    dirty.clear();
    if (ages === undefined && current !== undefined && views.get(current)?.busy === true) {
      ages = setTimeout(() => {
        ages = undefined;
        if (current !== undefined) touch(current);
      }, AGES_MS).unref();
    }
  };
  const touch = (step: string): void => {
    dirty.add(step);
    frame ??= setTimeout(flush, FRAME_MS).unref();
  };
  const viewOf = (step: string): StepView => {
    let view = views.get(step);
    if (view === undefined) views.set(step, (view = new StepView(step, planning, s)));
    return view;
  };

  const start = (event: EventOf<'run.start'>): void => {
    planning = event.mode === 'plan';
    write(
      `${event.mode === 'plan' ? 'plan' : event.resumed ? 'resume' : 'run'} ${event.playbook} on ${event.target}\n`,
    );
    for (const step of event.steps) outcomes.set(step.id, pending());
    const list = new Listr(
      event.steps.map((step) => ({
        title: `${step.name} \u001b[2m(${step.kind})\u001b[22m`,
        task: async (_ctx: unknown, task: Task) => {
          tasks.set(step.id, task);
          draw(step.id);
          const result = await (outcomes.get(step.id) as Pending).promise;
          tasks.delete(step.id);
          // the live lines give way to the lines the step keeps
          task.output = views.get(step.id)?.kept().join('\n') ?? '';
          if (result.kind === 'ok') task.title = result.title;
          else if (result.kind === 'skip') task.skip(result.message);
          else throw new Error(result.message);
        },
        // the last output (the kept lines, set when the step ends) stays on screen once it is done
        rendererOptions: { outputBar: 1, persistentOutput: true },
      })),
      // listr2's own SIGINT listener would end the tree and exit 127 at the first Ctrl-C: the run stops itself
      // (src/cli/commands/run.ts), and the tree shows what it waits for until it does
      { concurrent: false, exitOnError: true, registerSignalListeners: false },
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
      case 'step.start':
        current = event.step;
        viewOf(event.step).start(event.items);
        touch(event.step);
        break;
      case 'step.progress':
        viewOf(event.step).progressed(event);
        touch(event.step);
        break;
      case 'step.plan':
        viewOf(event.step).planned(event.changes, Date.now());
        touch(event.step);
        break;
      case 'item.done':
        viewOf(event.step).itemDone(event.item, event.status);
        touch(event.step);
        break;
      case 'log': {
        // a line of the run itself (a stop's notice: what it waits for) goes under the step that runs, else
        // under the tree once listr2 has stopped drawing
        const step = event.step ?? current;
        if (step === undefined) loose.push(event.message);
        else {
          viewOf(step).logged(event.level, event.message);
          touch(step);
        }
        break;
      }
      case 'retry':
        viewOf(event.step).retried(event);
        touch(event.step);
        break;
      case 'step.done': {
        if (current === event.step) current = undefined;
        const view = viewOf(event.step);
        view.finished();
        const reached = view.reached();
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
            message: `${event.step}: ${event.error?.message ?? event.status}${reached ? ` (${reached})` : ''}${seen}${hint}${diagnostics}`,
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
          settle(event.step, {
            kind: 'skip',
            message: `${event.step}: ${why}${reached ? ` (${reached})` : ''}`,
          });
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
      case 'error':
        break;
    }
  };

  return {
    listener,
    async finished() {
      await running;
      clearTimeout(frame);
      clearTimeout(ages);
      for (const line of loose) write(`${line}\n`);
      if (outcome) write(`${outcome}\n`);
    },
  };
}
