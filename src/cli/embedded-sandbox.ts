/**
 * `ledgerbook run` without --target: the built-in sandbox, started in this process for the run and stopped
 * after it. Its state lives under the state dir, so a second run meets the parties and packages of the first.
 */
import { join } from 'node:path';
import { ValidationError } from '../errors.js';
import { parseSource } from '../playbook/load.js';
import type { Target } from '../playbook/target.js';
import { validateTarget } from '../playbook/target-load.js';
import { stableBasePort } from './sandbox-ports.js';

const NODES = 3;
const HOST = '127.0.0.1';

export interface EmbeddedSandbox {
  target: Target;
  secrets: Record<string, string>;
  stop(): Promise<void>;
}

export async function startEmbeddedSandbox(stateDir: string): Promise<EmbeddedSandbox> {
  const { startSandbox } = await import('../sandbox/index.js');
  const dir = join(stateDir, 'sandbox');
  const port = await stableBasePort(dir, NODES, HOST);
  const sandbox = await startSandbox({ stateDir: dir, profile: 'fast', nodes: NODES, host: HOST, port });
  try {
    const { doc, diagnostics } = parseSource('<built-in sandbox target>', sandbox.targetYaml());
    const checked = validateTarget(doc);
    const problems = [...diagnostics, ...checked.diagnostics];
    if (problems.length > 0 || !checked.target) throw new ValidationError('LB_TARGET_INVALID', problems);
    return {
      target: { ...checked.target, file: undefined },
      secrets: sandbox.secrets(),
      stop: () => sandbox.stop(),
    };
  } catch (error) {
    await sandbox.stop();
    throw error;
  }
}
