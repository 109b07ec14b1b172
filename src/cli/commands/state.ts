import { hostname, userInfo } from 'node:os';
import { LockedError, UsageError } from '../../errors.js';
import { Journal } from '../../engine/journal.js';
import { lastRun } from '../../engine/journal-state.js';
import { acquireLock, inspectLock, isStale, unlock } from '../../engine/lock.js';
import { Masker } from '../../engine/masker.js';
import { STATE_ENV, isPostgresUrl } from '../../engine/state/backend.js';
import { copyState } from '../../engine/state/copy.js';
import { FileStateBackend } from '../../engine/state/file.js';
import { stateSpec } from '../../engine/state/open.js';
import { PG_SCHEMA, PgStateBackend, SCHEMA_VERSION } from '../../engine/state/postgres.js';
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
    const target = await targetName(options.target);
    const dir = runDir(options.stateDir ?? '.ledgerbook', name, target);
    const held = await inspectLock(dir);
    if (!held) {
      out.human.write(`no lock on ${name} with target ${target}\n`);
      return 0;
    }
    if (held === 'damaged') {
      if (options.force !== true) {
        throw new LockedError(
          `the lock of ${name} on ${target} is damaged (not a ledgerbook lock), so its holder cannot be checked`,
          `make sure no run of it is active, then remove it with \`ledgerbook state unlock ${playbook} --target ${options.target ?? BUILTIN_TARGET} --force\``,
        );
      }
      await unlock(dir);
      out.human.write(`removed the damaged lock of ${name} on ${target}\n`);
      return 0;
    }
    if (!isStale(held) && options.force !== true) {
      throw new LockedError(
        `the lock of ${name} on ${target} belongs to a live process: pid ${held.pid} on ${held.host} (${held.command})`,
        'stop that process first; --force removes the lock anyway (only if you are sure it is not running a step)',
      );
    }
    const removed = await unlock(dir, options.id, { forcedBy: `${userInfo().username}@${hostname()}` });
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
    const target = await targetName(options.target);
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

/** `ledgerbook state migrate --state postgres://…`: creates or upgrades the state schema. */
export async function migrateCommand(options: StateOptions): Promise<number> {
  const out = makeOutput(options);
  try {
    const spec = requirePostgres(options, 'migrate');
    const backend = await PgStateBackend.open(spec);
    await backend.close();
    out.human.write(
      backend.migrated.length > 0
        ? `${backend.where}: applied migration ${backend.migrated.join(', ')}; schema ${PG_SCHEMA} is at version ${SCHEMA_VERSION}\n`
        : `${backend.where}: schema ${PG_SCHEMA} is already at version ${SCHEMA_VERSION}\n`,
    );
    return 0;
  } catch (error) {
    return reportError(error, out);
  }
}

/**
 * `ledgerbook state push` (state dir → PostgreSQL) and `state pull` (PostgreSQL → state dir): every run's
 * journal, under both locks; a run already present on the other side is left alone and reported.
 */
export async function copyCommand(direction: 'push' | 'pull', options: StateOptions): Promise<number> {
  const out = makeOutput(options);
  try {
    const spec = requirePostgres(options, direction);
    const files = new FileStateBackend(options.stateDir ?? '.ledgerbook');
    const database = await PgStateBackend.open(spec);
    try {
      const [from, to] = direction === 'push' ? [files, database] : [database, files];
      const results = await copyState(from, to, {
        pid: process.pid,
        host: hostname(),
        user: userInfo().username,
        command: ['ledgerbook', ...process.argv.slice(2)].join(' '),
      });
      let refused = 0;
      for (const r of results) {
        const what = `${r.key.playbook} on ${r.key.target}`;
        if (r.skipped === 'exists') {
          refused++;
          out.human.write(`${what}: left alone, ${to.where} already has a journal for it\n`);
        } else if (r.skipped === 'locked') {
          refused++;
          out.human.write(`${what}: left alone, a run holds its lock\n`);
        } else out.human.write(`${what}: ${r.records} records copied to ${to.where}\n`);
      }
      if (results.length === 0) out.human.write(`no runs in ${from.where}\n`);
      return refused > 0 ? 1 : 0;
    } finally {
      await database.close();
    }
  } catch (error) {
    return reportError(error, out);
  }
}

function requirePostgres(options: StateOptions, command: string): string {
  const spec = stateSpec(options.state, process.env);
  if (spec === undefined || !isPostgresUrl(spec)) {
    throw new UsageError(
      `state ${command} needs a PostgreSQL state: --state postgres://… or ${STATE_ENV}`,
      `for example: ledgerbook state ${command} --state postgres://ledgerbook@db.example:5432/ledgerbook`,
    );
  }
  return spec;
}
