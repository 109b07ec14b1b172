/**
 * `ledgerbook run` (or `plan`) without --target: the sandbox of the state dir. When a `ledgerbook sandbox up` of
 * that state dir is running, the run uses it; otherwise the built-in sandbox is started in this process for the
 * run and stopped after it. Either way one simulator works on `<state dir>/sandbox` (src/cli/sandbox-claim.ts),
 * so a second run meets the parties and packages of the first.
 */
import { join } from 'node:path';
import { sandboxTargetYaml } from './fork/files.js';
import { ValidationError } from '../errors.js';
import { parseSource } from '../validation/load.js';
import type { Target } from '../playbook/target.js';
import { validateTarget } from '../validation/target-load.js';
import { terminalSafe } from '../terminal-text.js';
import { claimSandbox, runningSandbox } from './sandbox-claim.js';
import { sandboxPackage } from './sandbox-package.js';
import { stableBasePort } from './sandbox-ports.js';
import { stderr } from './stdio.js';

const NODES = 3;

const HOST = '127.0.0.1';

export interface EmbeddedSandbox {
  target: Target;
  /** stops the sandbox this process started; nothing for a `sandbox up` it only used */
  stop(): Promise<void>;
}

/** A target file the sandbox wrote, read and checked like any target (its secrets are files it names). */
function targetOf(label: string, yaml: string): Target {
  const { doc, diagnostics } = parseSource(label, yaml);
  const checked = validateTarget(doc);
  const problems = [...diagnostics, ...checked.diagnostics];
  if (problems.length > 0 || !checked.target) throw new ValidationError('LB_TARGET_INVALID', problems);
  return { ...checked.target, file: undefined };
}

export async function startEmbeddedSandbox(stateDir: string): Promise<EmbeddedSandbox> {
  const dir = join(stateDir, 'sandbox');
  const running = await runningSandbox(dir);
  if (running) {
    stderr.write(
      terminalSafe(
        `using the sandbox of ${dir} that \`${running.holder.command}\` runs (pid ${running.holder.pid}, since ${running.holder.at})\n`,
      ),
    );
    return {
      target: targetOf(`<the sandbox up of ${dir}>`, running.targetYaml),
      stop: () => Promise.resolve(),
    };
  }
  const { startSandbox } = await sandboxPackage();
  const lock = await claimSandbox(dir, 'built-in sandbox');
  let sandbox;
  try {
    const port = await stableBasePort(dir, NODES, HOST);
    sandbox = await startSandbox({ stateDir: dir, profile: 'fast', nodes: NODES, host: HOST, port });
  } catch (error) {
    await lock.release();
    throw error;
  }
  const stop = async (): Promise<void> => {
    try {
      await sandbox.stop();
    } finally {
      await lock.release();
    }
  };
  try {
    const yaml = await sandboxTargetYaml(sandbox, dir);
    return { target: targetOf('<built-in sandbox target>', yaml), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
