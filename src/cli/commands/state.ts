import { hostname, userInfo } from 'node:os';
import { LockedError, UsageError } from '../../errors.js';
import { Journal } from '../../engine/journal.js';
import { lastRun } from '../../engine/journal-state.js';
import { acquireLock, inspectLock, isStale, unlock } from '../../engine/lock.js';
import { Masker } from '../../engine/masker.js';
import { runDir } from '../../engine/state-dir.js';
import { makeOutput, reportError, type GlobalOptions } from '../output.js';
import { BUILTIN_TARGET } from '../prepare.js';
import { playbookName, targetName } from './status.js';

export interface StateOptions extends GlobalOptions {
  target?: string;
  id?: string;
  force?: boolean;
}

/** `ledgerbook state unlock <playbook>`: remove a lock left by a process that is gone. */
export async function unlockCommand(playbook: string, options: StateOptions): Promise<number> {
  const out = makeOutput(options);
  try {
    const name = await playbookName(playbook);
    const target = options.target === undefined ? BUILTIN_TARGET : await targetName(options.target);
    const dir = runDir(options.stateDir ?? '.ledgerbook', name, target);
    const inspected = await inspectLock(dir);
    if (inspected.state === 'none') {
      out.human.write(`no lock on ${name} with target ${target} (in ${dir})\n`);
      return 0;
    }
    if (inspected.state === 'damaged') {
      if (options.force !== true) {
        throw new LockedError(
          `the lock file ${inspected.path} is damaged: it cannot say which process holds it`,
          'make sure no run of this playbook and target is active, then run the same command with --force',
        );
      }
      await unlock(dir);
      out.human.write(`removed the damaged lock file of ${name} on ${target}\n`);
      return 0;
    }
    const held = inspected.info;
    if (!isStale(held) && options.force !== true) {
      throw new LockedError(
        `the lock of ${name} on ${target} belongs to a live process: pid ${held.pid} on ${held.host} (${held.command})`,
        'stop that process first; --force removes the lock anyway (only if you are sure it is not running a step)',
      );
    }
    const removed = await unlock(dir, options.id);
    out.human.write(`removed lock ${removed?.id ?? held.id} of ${name} on ${target}\n`);
    return 0;
  } catch (error) {
    return reportError(error, out);
  }
}

export interface ResolveOptions extends StateOptions {
  step: string;
  item?: string;
  done?: boolean;
  redo?: boolean;
}

/**
 * `ledgerbook state resolve <playbook> --step S [--item K] --done|--redo`: the operator's decision about an item
 * whose outcome was ambiguous (exit 4). `--done` records it as finished; `--redo` lets the next run do it again.
 */
export async function resolveCommand(playbook: string, options: ResolveOptions): Promise<number> {
  const out = makeOutput(options);
  try {
    if (options.done === options.redo) throw new UsageError('say either --done or --redo');
    const name = await playbookName(playbook);
    const target = options.target === undefined ? BUILTIN_TARGET : await targetName(options.target);
    const dir = runDir(options.stateDir ?? '.ledgerbook', name, target);
    const lock = await acquireLock(dir, {
      pid: process.pid,
      host: hostname(),
      user: userInfo().username,
      command: ['ledgerbook', ...process.argv.slice(2)].join(' '),
      playbook: name,
      target,
    });
    try {
      const journal = await Journal.open(dir, new Masker());
      try {
        const run = lastRun(journal.records);
        const item = options.item ?? '';
        const intents = run?.steps.get(options.step)?.pending.get(item);
        if (!run || !intents) {
          const pending = run
            ? [...run.steps.values()].flatMap((s) =>
                [...s.pending.keys()].map((k) => `${s.step}${k ? ` --item ${k}` : ''}`),
              )
            : [];
          throw new UsageError(
            `nothing to resolve: step '${options.step}'${item ? ` item '${item}'` : ''} has no unfinished side effect in the last run of ${name} on ${target}`,
            pending.length > 0
              ? `unfinished: --step ${pending.join(', --step ')}`
              : 'no item of the last run is unfinished',
          );
        }
        await journal.appendDurable({
          t: 'resolve',
          run: run.run,
          step: options.step,
          item,
          at: new Date().toISOString(),
          as: options.done ? 'done' : 'redo',
          by: `${userInfo().username}@${hostname()}`,
        });
        out.human.write(
          `recorded: ${options.step}${item ? ` item ${item}` : ''} ${options.done ? 'is done' : 'will run again'}; run the same playbook again to continue\n`,
        );
        return 0;
      } finally {
        await journal.close();
      }
    } finally {
      await lock.release();
    }
  } catch (error) {
    return reportError(error, out);
  }
}
