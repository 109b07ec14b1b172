/**
 * `sandbox up --fork`: the network a target names read into the fork snapshot of the new state dir (read-network.ts),
 * the copy's target kept beside it (so that a restart without --fork publishes and writes the same target), and the
 * report of what was copied and what the copy simulates.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ForkSummary, Sandbox } from '../sandbox-package.js';
import { createClients } from '../../clients/factory.js';
import { ServiceError } from '../../errors.js';
import { copyTargetYaml, type ForkSource } from './fork-target.js';
import { FORK_SNAPSHOT, FORK_TARGET } from './files.js';
import { readNetwork } from './read-network.js';
import { stderr } from '../stdio.js';

export interface ForkedSandbox {
  snapshot: string;
  /** writes the copy's target into the state dir and returns it */
  saveTarget(sandbox: Sandbox): Promise<string>;
}

export async function forkNetwork(
  source: ForkSource,
  stateDir: string,
  rewardsDays: number,
): Promise<ForkedSandbox> {
  await mkdir(stateDir, { recursive: true });
  const snapshot = join(stateDir, FORK_SNAPSHOT);
  const clients = createClients({ target: source.target, secrets: source.secrets, onToken: () => undefined });
  stderr.write(`reading ${source.target.name} (${source.target.network}) to fork it: reads only\n`);
  try {
    const read = await readNetwork({
      target: source.target,
      clients,
      file: snapshot,
      rewardsDays,
      progress: (line) => stderr.write(`  ${line}\n`),
    });
    stderr.write(
      `read ${read.contracts} contracts${read.unread > 0 ? `, ${read.unread} reads refused` : ''}\n`,
    );
  } catch (error) {
    if (error instanceof ServiceError)
      throw new ServiceError({
        service: error.service,
        method: error.method,
        path: error.path,
        status: error.status,
        serviceMessage: `cannot read the network to fork: ${error.serviceMessage ?? error.message}`,
        retryability: 'permanent',
        hint: 'the fork reads every node of the target: check that its URLs answer and its credentials log in',
      });
    throw error;
  } finally {
    await clients.close();
  }
  return {
    snapshot,
    async saveTarget(sandbox) {
      const yaml = copyTargetYaml(source.target, sandbox.targetYaml(), stateDir);
      await writeFile(join(stateDir, FORK_TARGET), yaml, { mode: 0o600 });
      return yaml;
    },
  };
}

/** what `sandbox up` says of a fork: what it copied and what it simulates (on a restart, only whose copy it is) */
export function forkReport(fork: ForkSummary, fresh: boolean): string {
  const source = `${fork.source.name} (${fork.source.network}) as read at ${fork.readAt}`;
  if (!fresh) return `a fork of ${source}\n`;
  const list = (counts: Record<string, number>): string =>
    Object.entries(counts)
      .map(([kind, n]) => `${n} ${kind}`)
      .join(', ');
  return [
    `forked ${source}`,
    `  copied: ${list(fork.copied)}`,
    ...(Object.keys(fork.notCopied).length > 0
      ? [`  not copied (templates the sandbox does not run): ${list(fork.notCopied)}`]
      : []),
    ...fork.unread.map((line) => `  not copied: ${line}`),
    `  simulated: ${fork.simulated.join('; ')}`,
    '',
  ].join('\n');
}
