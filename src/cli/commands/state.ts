import { hostname, userInfo } from 'node:os';
import { LockedError, UsageError } from '../../errors.js';
import { lastRun } from '../../engine/journal-state.js';
import { Masker } from '../../engine/masker.js';
import { stateCheck } from '../../engine/open-run.js';
import { isPostgresUrl, recordedCommand, type StateBackend } from '../../engine/state/backend.js';
import { STATE_ENV } from '../../environment.js';
import { copyState } from '../../engine/state/copy.js';
import { FileStateBackend } from '../../engine/state/file.js';
import { openState, stateSpec } from '../../engine/state/open.js';
import { PG_SCHEMA, PgStateBackend, SCHEMA_VERSION } from '../../engine/state/postgres.js';
import { makeOutput, reportError, type GlobalOptions } from '../output.js';
import { BUILTIN_TARGET } from '../prepare.js';
import { playbookName, targetName } from './status.js';

export interface StateOptions extends GlobalOptions {
  target?: string;
  id?: string;
  force?: boolean;
}

/** The state the command names: `--state` / LEDGERBOOK_STATE, else the state dir. */
function stateOf(options: GlobalOptions): Promise<StateBackend> {
  return openState(stateSpec(options.state, process.env), options.stateDir ?? '.ledgerbook');
}

function whoAmI(): { pid: number; host: string; user: string; command: string } {
  return {
    pid: process.pid,
    host: hostname(),
    user: userInfo().username,
    command: recordedCommand(process.argv.slice(2)),
  };
}

/** `ledgerbook state unlock <playbook>`: remove a lock left by a process that is gone. */
export async function unlockCommand(playbook: string, options: StateOptions): Promise<number> {
  const out = makeOutput(options);
  try {
    const name = await playbookName(playbook);
    const target = options.target === undefined ? BUILTIN_TARGET : await targetName(options.target);
    const key = { playbook: name, target };
    const state = await stateOf(options);
    try {
      const inspected = await state.inspectLock(key);
      if (inspected.state === 'none') {
        out.say(`no lock on ${name} with target ${target} (in ${state.where})\n`);
        return 0;
      }
      if (inspected.state === 'damaged') {
        if (options.force !== true) {
          throw new LockedError(
            `the lock file ${inspected.where} is damaged: it cannot say which process holds it`,
            'make sure no run of this playbook and target is active, then run the same command with --force',
          );
        }
        await state.unlock(key, { force: true });
        out.say(`removed the damaged lock file of ${name} on ${target}\n`);
        return 0;
      }
      const removed = await state.unlock(key, {
        ...(options.id === undefined ? {} : { id: options.id }),
        force: options.force === true,
      });
      out.say(`removed lock ${removed?.id ?? inspected.info.id} of ${name} on ${target}\n`);
      if (inspected.holder === 'alive') {
        const { info } = inspected;
        out.say(
          `warning: its holder, pid ${info.pid} (${info.command}), is still running: it records nothing more and stops at its next journal write, letting what it has in flight finish; a run of ${name} on ${target} started meanwhile is refused until that process ends\n`,
        );
      }
      return 0;
    } finally {
      await state.close();
    }
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
    const key = { playbook: name, target };
    const state = await stateOf(options);
    try {
      const lock = await state.acquireLock(key, whoAmI());
      try {
        // a run whose lock was removed by hand may still be writing this journal: leave it alone
        const journal = await state.openJournal(key, new Masker(), { lock, check: stateCheck(state, lock) });
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
          out.say(
            `recorded: ${options.step}${item ? ` item ${item}` : ''} ${options.done ? 'is done' : 'will run again'}; run the same playbook again to continue\n`,
          );
          return 0;
        } finally {
          await journal.close();
        }
      } finally {
        await lock.release();
      }
    } finally {
      await state.close();
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
    out.say(
      backend.migrated.length > 0
        ? `${backend.where}: applied migration${backend.migrated.length > 1 ? 's' : ''} ${backend.migrated.join(', ')}; schema ${PG_SCHEMA} is at version ${SCHEMA_VERSION}\n`
        : `${backend.where}: schema ${PG_SCHEMA} is already at version ${SCHEMA_VERSION}\n`,
    );
    return 0;
  } catch (error) {
    return reportError(error, out);
  }
}

/**
 * `ledgerbook state push` (state dir → PostgreSQL) and `state pull` (PostgreSQL → state dir): every run's
 * journal, under both locks; a run already present on the other side is left alone and reported (exit 1).
 */
export async function copyCommand(direction: 'push' | 'pull', options: StateOptions): Promise<number> {
  const out = makeOutput(options);
  try {
    const spec = requirePostgres(options, direction);
    const files = new FileStateBackend(options.stateDir ?? '.ledgerbook');
    const database = await PgStateBackend.open(spec);
    try {
      const [from, to] = direction === 'push' ? [files, database] : [database, files];
      const results = await copyState(from, to, whoAmI());
      let refused = 0;
      for (const r of results) {
        const what = `${r.key.playbook} on ${r.key.target}`;
        if (r.skipped === 'exists') {
          refused++;
          out.say(`${what}: left alone, ${to.where} already has a journal for it\n`);
        } else if (r.skipped === 'locked') {
          refused++;
          out.say(`${what}: left alone, a run holds its lock\n`);
        } else out.say(`${what}: ${r.records} records copied to ${to.where}\n`);
      }
      if (results.length === 0) out.say(`no runs in ${from.where}\n`);
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
      `for example: LEDGERBOOK_STATE=postgres://ledgerbook@db.example:5432/ledgerbook ledgerbook state ${command}`,
    );
  }
  return spec;
}
