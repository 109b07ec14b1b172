/**
 * `ledgerbook run` without --target: the built-in sandbox, started in this process for the run and stopped
 * after it. Its state lives under the state dir, so a second run meets the parties and packages of the first.
 */
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { LockedError, ValidationError } from '../errors.js';
import { acquireLock, type Lock } from '../engine/lock.js';
import { recordedCommand } from '../engine/state/backend.js';
import { parseSource } from '../playbook/load.js';
import type { Target } from '../playbook/target.js';
import { validateTarget } from '../playbook/target-load.js';
import { stableBasePort } from './sandbox-ports.js';

const NODES = 3;

/** the secrets the built-in sandbox supplies itself (its target names their files): nothing for the user to set */
export const BUILTIN_SANDBOX_SECRETS: ReadonlySet<string> = new Set([
  'SANDBOX_OPERATOR_PASSWORD',
  'SANDBOX_CI_CLIENT_SECRET',
]);
const HOST = '127.0.0.1';

export interface EmbeddedSandbox {
  target: Target;
  secrets: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * One process at a time owns the built-in sandbox of a state dir (its ports and its state files): a second run
 * meanwhile is refused (exit 75) with who holds it and how to share a sandbox instead.
 */
async function claim(dir: string): Promise<Lock> {
  try {
    return await acquireLock(dir, {
      pid: process.pid,
      host: hostname(),
      user: userInfo().username,
      command: recordedCommand(process.argv.slice(2)),
      playbook: 'built-in sandbox',
      target: 'sandbox',
    });
  } catch (error) {
    if (!(error instanceof LockedError)) throw error;
    throw new LockedError(
      `the built-in sandbox of ${dir} is in use by another run: ${error.message.replace(/^.* is locked by /, '')}`,
      'wait for that run to finish; to run several playbooks at once, start one shared sandbox (`ledgerbook sandbox up --write-target sandbox.yaml`) and give each run `--target sandbox.yaml`',
    );
  }
}

export async function startEmbeddedSandbox(stateDir: string): Promise<EmbeddedSandbox> {
  const { startSandbox } = await import('../sandbox/index.js');
  const dir = join(stateDir, 'sandbox');
  const lock = await claim(dir);
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
    const { doc, diagnostics } = parseSource('<built-in sandbox target>', sandbox.targetYaml());
    const checked = validateTarget(doc);
    const problems = [...diagnostics, ...checked.diagnostics];
    if (problems.length > 0 || !checked.target) throw new ValidationError('LB_TARGET_INVALID', problems);
    return {
      target: { ...checked.target, file: undefined },
      secrets: sandbox.secrets(),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
