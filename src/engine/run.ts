/**
 * Running a playbook: the lock and the journal of its (playbook, target), a saved plan checked under that lock,
 * then one walk over the steps — the plan walk (plan-walk.ts) or the apply walk (apply-walk.ts), which share the
 * step loop (walk.ts) and the item executor (item-executor.ts).
 */
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { ApplyWalk } from './apply-walk.js';
import type { EngineOptions, EngineResult } from './engine-options.js';
import { EventBus } from './event-bus.js';
import { LOST_LOCK_GRACE_MS } from './lock.js';
import { openRun, stateCheck } from './open-run.js';
import { PlanWalk } from './plan-walk.js';
import { playbookPath } from './playbook-path.js';
import { RunContext } from './run-context.js';
import { lastRunMark } from './saved-plan.js';
import { stateCommand } from './state-command.js';
import { FileStateBackend } from './state/file.js';

export {
  EXIT_INTERRUPTED,
  type EngineOptions,
  type EngineResult,
  type RunMode,
  type RunStatus,
} from './engine-options.js';
export { errorInfo, shownText } from './run-text.js';

export async function runPlaybook(options: EngineOptions): Promise<EngineResult> {
  const state = options.state ?? new FileStateBackend(options.stateDir);
  const key = { playbook: options.playbook.name, target: options.targetName };
  const owner = {
    file: options.playbook.file,
    path: playbookPath(options.playbook.file),
    fresh: options.fresh,
  };
  const command =
    options.stateCommand ?? stateCommand({ playbook: options.playbook.file, target: options.target?.file });
  const opened =
    options.mode === 'run'
      ? await openRun(
          state,
          key,
          { pid: process.pid, host: hostname(), user: options.actor, command: options.command },
          options.masker,
          owner,
          command,
        )
      : undefined;
  const lock = opened?.lock;
  const releaseOnExit = (): void => lock?.releaseSync();
  process.once('exit', releaseOnExit);
  // A lock that is lost (a database session that ended, a lock file taken away) stops the run: nothing new
  // starts, the journal records nothing more (it is fenced), and what is in flight gets LOST_LOCK_GRACE_MS to
  // finish before it is cancelled, so that the next holder, which waits for this process, finds it settled.
  const lost = lock?.lost;
  const afterGrace = lost ? graceAfter(lost, LOST_LOCK_GRACE_MS) : undefined;
  const signal = afterGrace ? AbortSignal.any([options.signal, afterGrace.signal]) : options.signal;
  const stopping = lost
    ? AbortSignal.any([options.stopping ?? new AbortController().signal, lost])
    : options.stopping;
  // every request in flight listens to it: a fan-out has many more than ten at once
  setMaxListeners(0, signal);
  try {
    const journal =
      opened?.journal ??
      (await state.openJournal(key, options.masker, {
        readOnly: true,
        check: stateCheck(state, undefined, owner),
      }));
    try {
      const { savedPlan, ...unguarded } = options;
      if (savedPlan && options.mode === 'run') {
        // Planned again, without a side effect and without a word to the reporters, under this run's lock.
        const check = await new PlanWalk(
          new RunContext(
            {
              ...unguarded,
              mode: 'plan',
              signal,
              events: new EventBus(options.masker),
              stateCommand: command,
            },
            journal,
          ),
        ).execute();
        if (check.error) throw check.error;
        savedPlan.verify(check.planned ?? [], journal.records);
      }
      const rc = new RunContext(
        { ...options, signal, ...(stopping ? { stopping } : {}), stateCommand: command },
        journal,
      );
      const walk = options.mode === 'plan' ? new PlanWalk(rc) : new ApplyWalk(rc, lock, owner.path);
      const result = await walk.execute();
      return options.mode === 'plan' ? { ...result, lastRun: lastRunMark(journal.records) } : result;
    } finally {
      await journal.close();
    }
  } catch (error) {
    // Whatever failed once the lock was lost failed because of it: say that, not the failed write.
    throw lock?.lost?.aborted ? (lock.lost.reason as Error) : error;
  } finally {
    afterGrace?.dispose();
    process.removeListener('exit', releaseOnExit);
    await lock?.release();
  }
}

/** A signal aborted `ms` after `signal` is, with its reason; `dispose` stops the timer when the run ends first. */
function graceAfter(signal: AbortSignal, ms: number): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const start = (): void => {
    timer = setTimeout(() => controller.abort(signal.reason), ms);
    timer.unref();
  };
  if (signal.aborted) start();
  else signal.addEventListener('abort', start, { once: true });
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      signal.removeEventListener('abort', start);
    },
  };
}
