import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import jsYaml from 'js-yaml';
import { Journal } from '../../engine/journal.js';
import { lastRun, summarizeRun, type RunState, type RunSummary } from '../../engine/journal-state.js';
import { inspectLock, isStale, type LockInfo } from '../../engine/lock.js';
import { Masker } from '../../engine/masker.js';
import { listRunDirs } from '../../engine/state-dir.js';
import { makeOutput, reportError, versionEvent, type GlobalOptions } from '../output.js';
import { BUILTIN_TARGET } from '../prepare.js';

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
  /** the lock file is there but is not a ledgerbook lock */
  lockDamaged?: boolean;
}

/** A playbook argument may be a file (its `name:` is read) or a playbook name. */
export async function playbookName(arg: string): Promise<string> {
  if (!existsSync(arg)) return arg;
  const data = jsYaml.load(await readFile(arg, 'utf8'), { schema: jsYaml.CORE_SCHEMA }) as {
    name?: unknown;
  } | null;
  return typeof data?.name === 'string' ? data.name : arg;
}

/**
 * The target name `--target` stands for: `sandbox`, a target name, or the path of a target file (its `name:`),
 * as `run` takes it.
 */
export async function targetName(arg: string | undefined): Promise<string> {
  if (arg === undefined || arg === BUILTIN_TARGET || !existsSync(arg)) return arg ?? BUILTIN_TARGET;
  const data = jsYaml.load(await readFile(arg, 'utf8'), { schema: jsYaml.CORE_SCHEMA }) as {
    name?: unknown;
  } | null;
  return typeof data?.name === 'string' ? data.name : arg;
}

function liveStatus(state: RunState, lock: LockInfo | undefined): string {
  if (state.status !== 'running') return state.status;
  if (lock && !isStale(lock)) return `running (pid ${lock.pid})`;
  return 'interrupted (the process died; run the same command again to resume)';
}

/** `ledgerbook status [playbook]`: the runs in the state dir and where each stands. */
export async function statusCommand(playbook: string | undefined, options: StatusOptions): Promise<number> {
  const out = makeOutput(options);
  try {
    const stateDir = options.stateDir ?? '.ledgerbook';
    const name = playbook === undefined ? undefined : await playbookName(playbook);
    const target = options.target === undefined ? undefined : await targetName(options.target);
    const dirs = (await listRunDirs(stateDir)).filter(
      (d) => (name === undefined || d.playbook === name) && (target === undefined || d.target === target),
    );
    const reports: RunReport[] = [];
    for (const d of dirs) {
      const journal = await Journal.open(d.dir, new Masker(), { readOnly: true });
      await journal.close();
      const state = lastRun(journal.records);
      const held = await inspectLock(d.dir);
      const lock = held === 'damaged' ? undefined : held;
      reports.push({
        playbook: d.playbook,
        target: d.target,
        last: state ? summarizeRun(state) : undefined,
        status: state ? liveStatus(state, lock) : 'no runs',
        file: state?.file,
        lock,
        ...(held === 'damaged' ? { lockDamaged: true } : {}),
      });
    }
    if (out.json) {
      // like every --json output: a version line first
      process.stdout.write(`${JSON.stringify(versionEvent())}\n${JSON.stringify({ runs: reports })}\n`);
      return 0;
    }
    if (reports.length === 0) {
      out.human.write(`no runs${name ? ` of ${name}` : ''} in ${stateDir}\n`);
      return 0;
    }
    for (const r of reports) {
      out.human.write(`${r.playbook} on ${r.target}: ${r.status}${r.last ? ` — run ${r.last.run}` : ''}\n`);
      if (r.last) {
        const ended = r.last.endedAt ? `, ended ${r.last.endedAt} (exit ${String(r.last.exitCode)})` : '';
        out.human.write(`  file ${r.file ?? '?'}, started ${r.last.startedAt}${ended}\n`);
        if (r.last.error) out.human.write(`  error: ${r.last.error.message}\n`);
        for (const step of r.last.steps) {
          const items = step.items > 1 ? ` ${step.done}/${step.items} items` : '';
          const pending =
            step.pending.length > 0 ? `, in flight: ${step.pending.join(', ') || '(the step)'}` : '';
          out.human.write(`  ${step.step}: ${step.status}${items}${pending}\n`);
        }
      }
      if (r.lockDamaged) {
        out.human.write(
          `  lock: damaged (not a ledgerbook lock); make sure no run is active, then \`ledgerbook state unlock ${r.playbook} --target ${r.target} --force\`\n`,
        );
      }
      if (r.lock) {
        const stale = isStale(r.lock)
          ? ` — stale: its process is gone; the next run takes it over, or clear it with \`ledgerbook state unlock ${r.playbook} --target ${r.target}\``
          : '';
        out.human.write(
          `  lock ${r.lock.id}: ${r.lock.user} on ${r.lock.host}, pid ${r.lock.pid}, since ${r.lock.at}${stale}\n`,
        );
      }
    }
    return 0;
  } catch (error) {
    return reportError(error, out);
  }
}
