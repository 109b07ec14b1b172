/**
 * What the fork e2e tests share: the original network (a sandbox started in the test) with its target file, the
 * shipped playbooks run on it through the CLI, a `ledgerbook sandbox up` process (a fork, or a restart of one) with
 * its URLs, and reads of the copy through its own APIs with the copy's own credentials.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import type { SandboxUrls } from '@ledgerbook/sandbox';
import {
  Api,
  HOLDING_INTERFACE,
  Wallet,
  passwordGrant,
  requestCounts,
  type PartyRecord,
  type World,
} from '@ledgerbook/sandbox/testing';
import { expect } from 'vitest';
import { cli, collect, spawnCli, type CliResult } from './cli.js';

export const PLAYBOOKS = resolve(import.meta.dirname, '../../playbooks');

/**
 * A shipped playbook run or planned (`--detailed-exitcode`) through the CLI in `dir`; mint-and-distribute with the
 * reports folder of `dir`, so that the rewards report a copy plans is the one the original's run wrote.
 */
export function playbook(
  dir: string,
  name: string,
  command: 'run' | 'plan',
  target: string,
  state: string,
  ...extra: string[]
): Promise<CliResult> {
  return cli(
    [
      command,
      join(PLAYBOOKS, `${name}.yaml`),
      '--target',
      target,
      '--state-dir',
      state,
      ...(name === 'mint-and-distribute' ? ['--input', `reports=${join(dir, 'reports')}`] : []),
      ...(command === 'plan' ? ['--detailed-exitcode'] : []),
      ...extra,
    ],
    { cwd: dir, timeoutMs: 240_000 },
  );
}

/** A one-line distribution from the target's minter to `receiver`, run through the CLI against `target`. */
export async function payFromMinter(
  dir: string,
  name: string,
  receiver: string,
  amount: string,
  target: string,
  state: string,
): Promise<CliResult> {
  await writeFile(join(dir, `${name}.csv`), `receiver,amount\n${receiver},${amount}\n`);
  const file = join(dir, `${name}.yaml`);
  await writeFile(
    file,
    stringify({
      name,
      steps: [{ id: 'pay', uses: 'token.distribute', with: { sender: 'minter', recipients: `${name}.csv` } }],
    }),
  );
  return cli(['run', file, '--target', target, '--state-dir', state], { cwd: dir, timeoutMs: 120_000 });
}

export function expectExit(result: CliResult, code: number): void {
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(code);
}

/** the reads a fork may send: GETs, the participants' read streams and the read-only POSTs */
const READ_ONLY_POSTS = new Set([
  '/v2/state/active-contracts',
  '/v2/events/events-by-contract-id',
  '/api/v1/analytics/daily-rewards',
]);

/** requests of the original that are not reads, as `node METHOD route` */
export async function writesTo(world: World): Promise<string[]> {
  return (await requestCounts(world))
    .filter(
      (r) =>
        r.method !== 'GET' && r.method !== 'WS' && !(r.method === 'POST' && READ_ONLY_POSTS.has(r.route)),
    )
    .map((r) => `${r.node} ${r.method} ${r.route}`);
}

export interface SandboxProcess {
  urls: SandboxUrls;
  child: ChildProcess;
  /** what it printed on stderr so far */
  stderr(): string;
  /** SIGTERM, and what it printed */
  stop(): Promise<CliResult>;
}

/** `ledgerbook sandbox up …` until it prints its URLs; a process that ends first is an error with its output */
export async function sandboxUp(args: string[], cwd: string): Promise<SandboxProcess> {
  // no --port: the state dir keeps its ports across restarts, as the nodes' party configurations need
  const child = spawnCli(['sandbox', 'up', ...args], { cwd });
  const done = collect(child, 180_000);
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const urls = await new Promise<SandboxUrls>((resolvePromise, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line !== undefined) resolvePromise(JSON.parse(line) as SandboxUrls);
    });
    void done.then(
      (result) => reject(new Error(`sandbox up ended (${result.code}):\n${result.stderr}`)),
      reject,
    );
  });
  return {
    urls,
    child,
    stderr: () => stderr,
    stop: async () => {
      child.kill('SIGTERM');
      return done;
    },
  };
}

/** `sandbox up` of a copy under the realistic profile, time-scaled: its submissions take their time, as a network's */
export const REALISTIC_COPY = ['--profile', 'realistic', '--time-scale', '0.1'];

/**
 * The network of `world` after these shipped playbooks ran on it (its target in `dir/network.yaml`, the runs' state
 * in `dir/runs`), its request log cleared, and a fork of it: state in `dir/copy`, target `dir/copy.yaml`.
 */
export async function forkAfter(
  world: World,
  dir: string,
  playbooks: readonly string[],
  extra: readonly string[] = [],
): Promise<{ targetFile: string; copy: SandboxProcess }> {
  const targetFile = join(dir, 'network.yaml');
  await writeFile(targetFile, world.sandbox.targetYaml());
  for (const name of playbooks)
    expectExit(await playbook(dir, name, 'run', targetFile, join(dir, 'runs')), 0);
  expect((await world.admin.call('DELETE', '/requests')).status).toBe(204);
  const copy = await sandboxUp(
    [
      '--fork',
      targetFile,
      '--state-dir',
      join(dir, 'copy'),
      '--write-target',
      join(dir, 'copy.yaml'),
      ...extra,
    ],
    dir,
  );
  return { targetFile, copy };
}

/** the copy's DPM and ledger APIs and wallets, logged in as each node's operator of the copy */
export function copyApis(urls: SandboxUrls, stateDir: string) {
  const secret = (file: string): string => readFileSync(join(stateDir, 'secrets', file), 'utf8').trim();
  const tokens = new Map<number, Promise<string>>();
  const token = (i: number): Promise<string> => {
    let hit = tokens.get(i);
    if (hit === undefined) {
      const file = i === 0 ? 'operator-password' : `operator${i + 1}-password`;
      hit = passwordGrant(urls.idp.tokenUrl, `operator${i + 1}`, secret(file));
      tokens.set(i, hit);
    }
    return hit;
  };
  const ledger = urls.nodes.map((n, i) => new Api(n.ledger, () => token(i)));
  return {
    dpm: urls.nodes.map((n, i) => new Api(n.dpm, () => token(i))),
    wallet: (party: string, node: number) => new Wallet(party, ledger[node] as Api, () => token(node)),
  };
}

/** a party as a node's DPM lists it live */
export async function partyOn(dpm: Api, prefix: string): Promise<PartyRecord | undefined> {
  const response = await dpm.get<{ parties: PartyRecord[] }>(
    `/decentralized-parties?prefix=${prefix}&refresh=true`,
  );
  return response.body.parties[0];
}

/** the ids of a party's holdings (locked or not), sorted */
export async function holdingIds(wallet: Wallet): Promise<string[]> {
  const entries = await wallet.acsWs({ interface: HOLDING_INTERFACE });
  return entries.map((e) => e.contractEntry.JsActiveContract.createdEvent.contractId).sort();
}

/** a party's holdings as a participant discloses them: contract id and created-event blob, sorted */
export async function holdingBlobs(wallet: Wallet): Promise<string[]> {
  const entries = await wallet.acsWs({ interface: HOLDING_INTERFACE });
  return entries
    .map((e) => e.contractEntry.JsActiveContract.createdEvent)
    .map((ev) => `${ev.contractId} ${ev.createdEventBlob ?? ''}`)
    .sort();
}
