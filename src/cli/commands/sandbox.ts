import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { isLoopback } from '../../loopback.js';
import { checkWritable } from '../files.js';
import { claimSandbox, publishRunning, unpublishRunning } from '../sandbox-claim.js';
import { sandboxPackage, type SandboxUrls } from '../sandbox-package.js';
import { stableBasePort } from '../sandbox-ports.js';
import { InvalidDurationError, parseDuration } from '../../playbook/duration.js';
import { makeOutput, reportError, type GlobalOptions } from '../output.js';
import { type ForkedSandbox, forkNetwork, forkReport } from '../fork/fork-sandbox.js';
import { sandboxTargetYaml } from '../fork/files.js';
import { loadForkSource } from '../fork/fork-target.js';
import { stderr, stdout } from '../stdio.js';

export interface SandboxUpOptions extends GlobalOptions {
  nodes: string;
  host: string;
  port?: string;
  profile: string;
  timeScale?: string;
  network: string;
  faults?: string;
  writeTarget?: string;
  insecure?: boolean;
  tokenTtl?: string;
  ledgerApi?: string;
  submitLatency?: string;
  transferLimit?: string;
  transferWindow?: string;
  rewardsFields?: string;
  maxDeduplicationDuration?: string;
  fork?: string;
  forkDays?: string;
}

function integer(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got '${text}'`);
  }
  return value;
}

/** a number; its range is startSandbox's to check */
function number(name: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || Number.isNaN(value))
    throw new UsageError(`--${name} must be a number, got '${text}'`);
  return value;
}

/** a duration (`0`, `30s`, `168h`), in seconds */
function seconds(name: string, text: string): number {
  try {
    return parseDuration(text) / 1000;
  } catch (error) {
    if (!(error instanceof InvalidDurationError)) throw error;
    throw new UsageError(`--${name} must be a duration such as 0, 30s or 168h, got '${text}'`);
  }
}

/**
 * `ledgerbook sandbox up`: the simulated services on loopback until SIGINT or SIGTERM. Prints every URL on
 * stdout — a list in a terminal, one JSON line otherwise (piped, CI, --json); everything else goes to stderr.
 */
export async function sandboxUpCommand(options: SandboxUpOptions): Promise<number> {
  const out = makeOutput(options);
  // Listen for the signals before anything starts: a supervisor may send SIGTERM as soon as it reads the URL line
  // (or earlier), and a signal nobody listens for kills the process at once: no clean stop, no exit 0.
  const stopSignal = listenForStop();
  try {
    if (options.profile !== 'fast' && options.profile !== 'realistic') {
      throw new UsageError(`--profile must be fast or realistic, got '${options.profile}'`);
    }
    const network = options.network;
    if (network !== 'devnet' && network !== 'testnet' && network !== 'mainnet') {
      throw new UsageError(`--network must be devnet, testnet or mainnet, got '${network}'`);
    }
    if (options.ledgerApi !== undefined && !['3.4', '3.5', 'strict'].includes(options.ledgerApi)) {
      throw new UsageError(`--ledger-api must be 3.4, 3.5 or strict, got '${options.ledgerApi}'`);
    }
    if (
      options.rewardsFields !== undefined &&
      options.rewardsFields !== 'document' &&
      options.rewardsFields !== 'live'
    ) {
      throw new UsageError(`--rewards-fields must be document or live, got '${options.rewardsFields}'`);
    }
    const capacity = {
      ...(options.submitLatency !== undefined
        ? { latencyMs: integer('submit-latency', options.submitLatency, 0, 600_000) }
        : {}),
      ...(options.transferLimit !== undefined
        ? {
            limit:
              options.transferLimit === 'none'
                ? null
                : integer('transfer-limit', options.transferLimit, 1, 1_000_000_000),
          }
        : {}),
      ...(options.transferWindow !== undefined
        ? { windowMs: integer('transfer-window', options.transferWindow, 1, 86_400) * 1000 }
        : {}),
    };
    if (options.writeTarget !== undefined) await checkWritable(options.writeTarget, '--write-target');
    const forkDays = integer('fork-days', options.forkDays ?? '7', 1, 366);
    // the target to fork is loaded and its secrets resolved before anything starts or is sent
    const forkSource =
      options.fork === undefined ? undefined : await loadForkSource(options.fork, process.env);
    const { loadFaultsFile, startSandbox, checkForkable } = await sandboxPackage();
    const faults = options.faults ? await loadFaultsFile(options.faults) : undefined;
    const nodes =
      forkSource === undefined
        ? integer('nodes', options.nodes, 1, 16)
        : Object.keys(forkSource.target.nodes ?? {}).length;
    const port = options.port === undefined ? undefined : integer('port', options.port, 0, 65535);
    const timeScale = options.timeScale === undefined ? undefined : number('time-scale', options.timeScale);
    const tokenTtl =
      options.tokenTtl === undefined ? undefined : integer('token-ttl', options.tokenTtl, 1, 86_400);
    const maxDeduplicationDuration =
      options.maxDeduplicationDuration === undefined
        ? undefined
        : seconds('max-deduplication-duration', options.maxDeduplicationDuration);
    if (!isLoopback(options.host)) {
      // before any port is probed: nothing listens beyond this machine, not even for a moment
      throw new UsageError(
        `the sandbox listens on loopback only, got --host ${options.host}`,
        'use 127.0.0.1 (the default), another 127.x.y.z address, or ::1',
      );
    }
    // the same place `ledgerbook run` without --target keeps its sandbox: one simulator at a time works on it
    const stateDir = resolve(options.stateDir ?? '.ledgerbook', 'sandbox');
    const lock = await claimSandbox(stateDir, 'sandbox up');
    try {
      let forked: ForkedSandbox | undefined;
      if (forkSource !== undefined) {
        await checkForkable(stateDir);
        forked = await forkNetwork(forkSource, stateDir, forkDays);
      }
      const sandbox = await startSandbox({
        nodes,
        host: options.host,
        // the ports this state dir's sandbox had before (the built-in one's too): the nodes keep the identity
        // provider's URL in the party credentials they were given
        port: port ?? (await stableBasePort(stateDir, nodes, options.host)),
        stateDir,
        profile: options.profile,
        ...(timeScale !== undefined ? { timeScale } : {}),
        network,
        ...(faults ? { faults } : {}),
        ...(options.insecure ? { insecure: true } : {}),
        ...(tokenTtl !== undefined ? { accessTokenTtlSeconds: tokenTtl } : {}),
        ...(options.ledgerApi ? { ledgerApi: options.ledgerApi as '3.4' | '3.5' | 'strict' } : {}),
        capacity,
        ...(options.rewardsFields ? { rewardsFields: options.rewardsFields } : {}),
        ...(maxDeduplicationDuration !== undefined ? { maxDeduplicationDuration } : {}),
        ...(forked ? { fork: forked.snapshot } : {}),
      });
      try {
        const targetYaml = forked
          ? await forked.saveTarget(sandbox)
          : await sandboxTargetYaml(sandbox, stateDir);
        if (sandbox.fork !== undefined) stderr.write(forkReport(sandbox.fork, forked !== undefined));
        if (options.writeTarget) {
          await writeFile(options.writeTarget, targetYaml);
          stderr.write(`target written to ${options.writeTarget}\n`);
        }
        // a run or plan without --target of this state dir finds it here
        await publishRunning(stateDir, lock, targetYaml);
        // a person at a terminal reads a list; a script (stdout piped) or --json parses the one JSON line
        stdout.write(out.interactive ? urlList(sandbox.urls) : `${JSON.stringify(sandbox.urls)}\n`);
        stderr.write(
          `sandbox up (state in ${stateDir}); runs without --target in this state dir use it; Ctrl-C to stop\n`,
        );
        const signal = await stopSignal.received;
        stderr.write(`${signal}: stopping the sandbox\n`);
      } finally {
        await unpublishRunning(stateDir);
        await sandbox.stop();
      }
    } finally {
      await lock.release();
    }
    stderr.write('sandbox stopped\n');
    return 0;
  } catch (error) {
    return reportError(error, out);
  } finally {
    stopSignal.dispose();
  }
}

/** The URLs as a person reads them: one service a line, names aligned. */
export function urlList(urls: SandboxUrls): string {
  const rows: Array<[string, string]> = [
    ['identity provider', urls.idp.issuer],
    ...urls.nodes.flatMap((n): Array<[string, string]> => [
      [`${n.name} DPM API`, n.dpm],
      [`${n.name} ledger API`, `${n.ledger}   (${n.participantId})`],
    ]),
    ...(['registry', 'gateway', 'rewards', 'faucet', 'bitcoin', 'admin'] as const).map(
      (key): [string, string] => [key === 'admin' ? 'admin API' : key, urls[key]],
    ),
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows.map(([name, url]) => `  ${name.padEnd(width)}  ${url}\n`).join('');
}

function listenForStop(): { received: Promise<NodeJS.Signals>; dispose(): void } {
  let onSignal: (signal: NodeJS.Signals) => void = () => undefined;
  const received = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = (signal) => resolve(signal);
  });
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    received,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
