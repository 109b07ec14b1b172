import { statSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { defineStep, type Outputs, type StepContext } from '../contract.js';
import { PLAN_KEY_ENV, STATE_ENV } from '../../environment.js';
import { StepError } from '../../errors.js';
import { toText } from '../../playbook/expressions/values.js';
import { safeScript } from './shell-script.js';
import { coreShellDeclaration, type With } from './shell.declaration.js';

interface Observed {
  /** a guard (creates / unless) holds, or an earlier run finished this very command */
  satisfied: boolean;
  reason: string;
  /** the outputs of the earlier run that finished this command, kept for a converged rerun */
  outputs?: Outputs;
}

const NO_OUTPUTS: Outputs = { stdout: '', stderr: '', exit_code: 0 };

/**
 * ledgerbook's own credentials, left out of the environment a command inherits: the state's connection string
 * (a database password) and the key that signs plans are the engine's, not the playbook's commands' (a playbook
 * that means to pass one says so in its `env:`).
 */
const ENGINE_ONLY: Record<string, undefined> = { [STATE_ENV]: undefined, [PLAN_KEY_ENV]: undefined };

/**
 * A shell script of `with` (`run` or `unless`) as the shell should get it: each expression the playbook wrote
 * in it becomes an environment variable. `resolved` is the field's resolved text, used when the playbook wrote
 * no expression there.
 */
function shellCommand(
  ctx: StepContext,
  field: 'run' | 'unless',
  resolved: string,
  first: number,
): { script: string; env: Record<string, string> } {
  const written = ctx.source[field];
  if (typeof written !== 'string' || !written.includes('${{')) return { script: resolved, env: {} };
  return safeScript(written, (expression) => toText(ctx.evaluate(expression)), `with.${field}`, first);
}

/** SIGTERM to the command's process group, SIGKILL two seconds later if it is still there. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  const signal = (sig: NodeJS.Signals): void => {
    try {
      process.kill(-pid, sig);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  };
  signal('SIGTERM');
  setTimeout(() => signal('SIGKILL'), 2000).unref();
}

/** Whether a process exists (EPERM: it does, under another user). */
function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function countExpressions(ctx: StepContext, field: 'run' | 'unless'): number {
  const written = ctx.source[field];
  return typeof written === 'string' ? written.split('${{').length - 1 : 0;
}

/** Why `dir` cannot be a working directory, or undefined when it can. */
function missingDirectory(dir: string): string | undefined {
  try {
    return statSync(dir).isDirectory() ? undefined : 'is not a directory';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'does not exist';
    throw error;
  }
}

function commandText(run: string | readonly string[]): string {
  return typeof run === 'string' ? run : run.join(' ');
}

async function guardHolds(
  ctx: StepContext,
  w: With,
): Promise<{ holds: boolean; reason: string } | undefined> {
  const cwd = resolve(ctx.baseDir, w.cwd ?? '.');
  if (w.creates !== undefined) {
    const path = resolve(cwd, w.creates);
    const exists = await access(path).then(
      () => true,
      () => false,
    );
    if (exists) return { holds: true, reason: `${w.creates} exists` };
    if (w.unless === undefined) return { holds: false, reason: `${w.creates} does not exist` };
  }
  if (w.unless !== undefined) {
    // `plan --untrusted`: the check is a command of a playbook nobody reviewed yet
    if (ctx.untrusted === true)
      return { holds: false, reason: `\`${w.unless}\` not evaluated: an untrusted plan runs no command` };
    const { execa } = await import('execa');
    const unless = shellCommand(ctx, 'unless', w.unless, 1);
    const check = await execa('sh', ['-c', unless.script], {
      cwd,
      env: { ...ENGINE_ONLY, ...w.env, ...unless.env },
      reject: false,
      cancelSignal: ctx.signal,
      stdin: 'ignore',
      // its own process group: a Ctrl-C at the terminal (which stops the run after what is in flight) must not
      // kill the check and make the step's guard look false
      detached: true,
    });
    if (check.signal !== undefined) {
      if (ctx.signal.aborted)
        throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new StepError('cancelled');
      throw new StepError(`\`${w.unless}\` was killed by ${check.signal}: the guard cannot be told`, {
        hint: 'run again; a check that cannot finish is no answer',
      });
    }
    return check.exitCode === 0
      ? { holds: true, reason: `\`${w.unless}\` succeeded` }
      : { holds: false, reason: `\`${w.unless}\` exited ${String(check.exitCode)}` };
  }
  return undefined;
}

/**
 * Runs a command. With `creates` or `unless` it observes live state, so a rerun skips work already done and a
 * crash in the middle is reconciled. Without a guard, its only memory is the journal: an earlier run that
 * finished the same command counts as in sync; a crash before the command started is safe to redo, a crash
 * after it started is an ambiguous outcome for the operator to resolve.
 */
export const coreShell = defineStep<With, Observed>({
  ...coreShellDeclaration,
  async observe(ctx, w) {
    // checked here, not by validate: an earlier step may create the folder
    const cwd = resolve(ctx.baseDir, w.cwd ?? '.');
    const problem = missingDirectory(cwd);
    if (problem) {
      throw new StepError(`with.cwd: ${cwd} ${problem}`, {
        hint: 'create it, or correct cwd (relative to the playbook file)',
      });
    }
    const guard = await guardHolds(ctx, w);
    const outputs = ctx.previous?.outputs;
    if (guard) return { satisfied: guard.holds, reason: guard.reason, ...(outputs ? { outputs } : {}) };
    if (outputs) return { satisfied: true, reason: 'an earlier run finished this command', outputs };
    return { satisfied: false, reason: 'no guard' };
  },
  plan(w, observed) {
    if (observed.satisfied) return { changes: [], outputs: observed.outputs ?? NO_OUTPUTS };
    return { changes: [{ action: 'run', summary: `run \`${commandText(w.run)}\` (${observed.reason})` }] };
  },
  async apply(ctx, w) {
    const { execa } = await import('execa');
    // The command starts gated: the shell waits for one line on stdin before it execs the command. The gate
    // opens only after the child's pid is journalled, so a crash before that leaves a shell that exits on
    // EOF without running anything, and a crash after it leaves a pid that reconcile can wait for.
    const gate = 'read -r _ || exit 97; exec "$@"';
    // `unless` takes the first variables; `run` numbers on from there, so the two never share a name
    const command =
      typeof w.run === 'string'
        ? shellCommand(ctx, 'run', w.run, 1 + countExpressions(ctx, 'unless'))
        : undefined;
    const argv = command ? ['sh', '-c', command.script] : (w.run as string[]);
    // Its own process group, so that a timeout or Ctrl-C stops the whole command, not just its shell.
    const child = execa('sh', ['-c', gate, 'ledgerbook-gate', ...argv], {
      cwd: resolve(ctx.baseDir, w.cwd ?? '.'),
      env: { ...ENGINE_ONLY, ...w.env, ...command?.env },
      reject: false,
      detached: true,
      stdin: 'pipe',
      stripFinalNewline: true,
    });
    const stop = (): void => killGroup(child.pid);
    ctx.signal.addEventListener('abort', stop, { once: true });
    if (child.pid !== undefined) {
      // One durable intent per execution: the gated child has done nothing yet, so a crash before this record
      // is safe to redo, and after it reconcile has the pid to wait for.
      try {
        await ctx.record({ action: 'started', pid: child.pid, command: commandText(w.run) });
      } catch (error) {
        stop();
        throw error;
      }
      child.stdin.end('go\n');
    }
    const result = await child.finally(() => ctx.signal.removeEventListener('abort', stop));
    // what it printed is shown under the step (also when it failed or was stopped), whole in --json and --summary
    ctx.output('stdout', result.stdout);
    ctx.output('stderr', result.stderr);
    if (ctx.signal.aborted)
      throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new StepError('cancelled');
    const outputs: Outputs = {
      stdout: result.stdout,
      stderr: result.stderr,
      exit_code: result.exitCode ?? -1,
    };
    if (result.exitCode !== 0) {
      const tail = result.stderr.split('\n').slice(-5).join('\n').trim();
      const how = result.signal ? `was killed by ${result.signal}` : `exited ${String(result.exitCode)}`;
      throw new StepError(`\`${commandText(w.run)}\` ${how}${tail ? `: ${tail}` : ''}`, {
        hint: 'fix the command or its environment and run again; finished steps are skipped',
      });
    }
    return outputs;
  },
  async reconcile(ctx, w, _item, intents) {
    const started = intents.find((i) => i.action === 'started');
    if (started === undefined) {
      return { status: 'not-done', note: 'the command never started: its gate was not opened' };
    }
    const pid = Number(started['pid']);
    if (processAlive(pid))
      ctx.progress(`waiting for the command of the interrupted run (pid ${pid}) to finish`);
    while (processAlive(pid)) await ctx.clock.sleep(200, ctx.signal);
    const guard = await guardHolds(ctx, w);
    if (guard?.holds) return { status: 'done', outputs: NO_OUTPUTS };
    if (guard) return { status: 'not-done', note: guard.reason };
    // what ran is what the intent recorded, whatever the playbook says now
    const ran = typeof started['command'] === 'string' ? started['command'] : commandText(w.run);
    return {
      status: 'ambiguous',
      seen: `\`${ran}\` started (pid ${pid}) and has ended, but its result was not recorded: the run that started it stopped before it finished`,
      hint: 'check by hand whether it took effect (with `creates:` or `unless:` ledgerbook checks by itself)',
    };
  },
});
