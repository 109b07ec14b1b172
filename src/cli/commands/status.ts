import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import jsYaml from 'js-yaml';
import { lastRun, summarizeRun, type RunState, type RunSummary } from '../../engine/journal-state.js';
import { isLive } from '../../engine/live-run.js';
import { holderName, type LockInfo } from '../../engine/lock.js';
import { EVENT_STRUCTURE, type EventOf } from '../../engine/events.js';
import { Masker } from '../../engine/masker.js';
import { FAST_SCHEMA } from '../../validation/load.js';
import { type LockState } from '../../engine/state/backend.js';
import { STATE_ENV } from '../../environment.js';
import { stateDirProblem } from '../../engine/fs-problem.js';
import { FileStateBackend } from '../../engine/state/file.js';
import { openState, stateSpec } from '../../engine/state/open.js';
import { stateCommand } from '../../engine/state-command.js';
import { makeOutput, reportError, versionEvent, type GlobalOptions } from '../output.js';
import { stateFromEnvironment, stateOptions } from '../state-options.js';

export interface StatusOptions extends GlobalOptions {
  target?: string;
}

interface RunReport {
  playbook: string;
  target: string;
  /** the last run, or undefined when none was recorded */
  last: RunSummary | undefined;
  /** `running` refined with the lock: alive, or died */
  status: string;
  file: string | undefined;
  lock: LockInfo | undefined;
  /** whether the lock's holder is alive, gone (stale), or cannot be checked from here (another host) */
  lockHolder?: 'alive' | 'gone' | 'unknown';
  /** the lock file is there but is not a lock (written by hand, or by an older version cut short) */
  damagedLock?: string;
}

/** A playbook (or target) argument may be a file (its `name:` is read) or a name. */
export async function playbookName(arg: string): Promise<string> {
  if (!existsSync(arg)) return arg;
  let data: { name?: unknown } | null;
  try {
    data = jsYaml.load(await readFile(arg, 'utf8'), { schema: FAST_SCHEMA }) as {
      name?: unknown;
    } | null;
  } catch (error) {
    if (error instanceof jsYaml.YAMLException) return arg;
    throw error;
  }
  return typeof data?.name === 'string' ? data.name : arg;
}

/** A `--target` given as a file names its target by the file's `name:`, as `run` does. */
export const targetName = playbookName;

/**
 * Where the last run stands. One without an end whose process is gone either died, or could not write its end:
 * a full disk or a read-only state dir (as it is now) says which.
 */
function liveStatus(state: RunState, lock: LockState, dir: string | undefined): string {
  if (state.status !== 'running') return state.status;
  if (lock.state === 'held' && lock.holder !== 'gone')
    return `running (pid ${lock.info.pid} on ${lock.info.host})`;
  if (isLive(state))
    return `running (pid ${state.pid} on ${state.host}), though its lock was removed: no lock keeps other runs out`;
  const problem = dir === undefined ? undefined : stateDirProblem(dir);
  if (problem !== undefined) return `stopped without recording its end: ${problem.reason}; ${problem.hint}`;
  return 'interrupted (the process died; run the same command again to resume)';
}

/** How a command line here names a run's playbook: the file its last run named, if it is that playbook, else its name. */
async function playbookArgument(r: RunReport): Promise<string> {
  return r.file !== undefined && (await playbookName(r.file)) === r.playbook ? r.file : r.playbook;
}

/** `ledgerbook status [playbook]`: the runs in the state (dir or database) and where each stands. */
export async function statusCommand(playbook: string | undefined, options: StatusOptions): Promise<number> {
  const out = makeOutput(options);
  try {
    const name = playbook === undefined ? undefined : await playbookName(playbook);
    const target = options.target === undefined ? undefined : await targetName(options.target);
    const state = await openState(stateSpec(options.state, process.env), options.stateDir ?? '.ledgerbook');
    const reports: RunReport[] = [];
    try {
      const keys = (await state.listRuns()).filter(
        (k) => (name === undefined || k.playbook === name) && (target === undefined || k.target === target),
      );
      for (const key of keys) {
        const journal = await state.openJournal(key, new Masker(), { readOnly: true });
        await journal.close();
        const last = lastRun(journal.records);
        const lock = await state.inspectLock(key);
        reports.push({
          playbook: key.playbook,
          target: key.target,
          last: last ? summarizeRun(last) : undefined,
          status: last
            ? liveStatus(last, lock, state instanceof FileStateBackend ? state.dir(key) : undefined)
            : 'no runs',
          file: last?.file,
          lock: lock.state === 'held' ? lock.info : undefined,
          ...(lock.state === 'held' ? { lockHolder: lock.holder } : {}),
          ...(lock.state === 'damaged' ? { damagedLock: lock.where } : {}),
        });
      }
    } finally {
      await state.close();
    }
    if (out.json) {
      // like every --json output: a version line first; each line an event of schemas/events.schema.json
      out.event(versionEvent());
      const event: EventOf<'status'> = {
        type: 'status',
        time: new Date().toISOString(),
        state: state.where,
        runs: reports,
      };
      out.event(new Masker().maskDeep(event, EVENT_STRUCTURE));
      return 0;
    }
    if (reports.length === 0) {
      out.say(`no runs${name ? ` of ${name}` : ''} in ${state.where}\n`);
      return 0;
    }
    for (const r of reports) {
      out.say(`${r.playbook} on ${r.target}: ${r.status}${r.last ? ` — run ${r.last.run}` : ''}\n`);
      if (r.last) {
        const ended = r.last.endedAt ? `, ended ${r.last.endedAt} (exit ${String(r.last.exitCode)})` : '';
        out.say(`  file ${r.file ?? '?'}, started ${r.last.startedAt}${ended}\n`);
        if (r.last.error) out.say(`  error: ${r.last.error.message}\n`);
        for (const step of r.last.steps) {
          const items = step.items > 1 ? ` ${step.done}/${step.items} items` : '';
          const pending =
            step.pending.length > 0 ? `, in flight: ${step.pending.join(', ') || '(the step)'}` : '';
          out.say(`  ${step.step}: ${step.status}${items}${pending}\n`);
        }
      }
      const command = stateCommand({
        playbook: await playbookArgument(r),
        target: r.target,
        state: stateOptions(options),
      });
      if (r.damagedLock) {
        out.say(
          `  lock file ${r.damagedLock} is damaged (not a ledgerbook lock): if no run of it is active, remove it with \`${command('unlock', ['--force'])}\`\n`,
        );
      }
      if (r.lock) {
        const withEnvironment = stateFromEnvironment(options)
          ? ` (with ${STATE_ENV} set to the connection string given with --state)`
          : '';
        const stale =
          r.lockHolder === 'gone'
            ? ` — stale: its process is gone; the next run takes it over, or clear it with \`${command('unlock', ['--id', r.lock.id])}\`${withEnvironment}`
            : '';
        out.say(
          `  lock ${r.lock.id}: ${holderName(r.lock)}, pid ${r.lock.pid}, since ${r.lock.at}${stale}\n`,
        );
      }
    }
    return 0;
  } catch (error) {
    return reportError(error, out);
  }
}
