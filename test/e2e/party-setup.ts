/**
 * What the party e2e tests share: a sandbox started in the test with its target file, CLI runs against it with
 * their own state dir, small playbooks written in the test, and reads of the outcome through every node's own
 * DPM API (never through ledgerbook's output).
 */
import type { ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { parse, stringify } from 'yaml';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import {
  acceptOn,
  refreshedParty,
  requestCounts,
  runOf,
  startWorld,
  waitFor,
  type Api,
  type PartyRecord,
  type RunRecord,
  type World,
} from '../sandbox/helpers.js';
import { cli, collect, spawnCli, tempDir, type CliResult } from './cli.js';
import { writes } from './packages-setup.js';

export const PLAYBOOKS = resolve(import.meta.dirname, '../../playbooks');

export interface PartyWorld {
  world: World;
  dir: string;
  targetFile: string;
  stateDir: string;
  /** `ledgerbook run <playbook> --target … --state-dir …`, to the end */
  run(playbook: string, ...args: string[]): Promise<CliResult>;
  /** the same, as a child process the test can kill */
  spawn(playbook: string, ...args: string[]): { child: ChildProcess; done: Promise<CliResult> };
  /** the same with another target file (see `target`) */
  spawnOn(
    targetFile: string,
    playbook: string,
    ...args: string[]
  ): { child: ChildProcess; done: Promise<CliResult> };
  /** a copy of the sandbox's target, edited: what another operator's target file would say */
  target(name: string, edit: (target: Record<string, unknown>) => void): Promise<string>;
  /** requests that change state, as `node METHOD route` → count */
  writes(): Promise<Map<string, number>>;
  /** a playbook file in the test's folder */
  playbook(name: string, text: string): Promise<string>;
  /** the journal of a playbook's runs on this target */
  journal(playbook: string): Promise<string>;
  stop(): Promise<void>;
}

export async function partyWorld(options: Partial<SandboxOptions> = {}): Promise<PartyWorld> {
  const world = await startWorld(options);
  const dir = await tempDir('lb-party-');
  const targetFile = join(dir, 'target.yaml');
  await writeFile(targetFile, world.sandbox.targetYaml());
  const stateDir = join(dir, 'state');
  const args = (playbook: string, extra: string[], target = targetFile): string[] => [
    'run',
    playbook,
    '--target',
    target,
    '--state-dir',
    stateDir,
    ...extra,
  ];
  const spawnOn = (target: string, playbook: string, ...extra: string[]) => {
    const child = spawnCli(args(playbook, extra, target), { cwd: dir });
    return { child, done: collect(child) };
  };
  return {
    world,
    dir,
    targetFile,
    stateDir,
    run: (playbook, ...extra) => cli(args(playbook, extra), { cwd: dir }),
    spawn: (playbook, ...extra) => spawnOn(targetFile, playbook, ...extra),
    spawnOn,
    async target(name, edit) {
      const target = parse(world.sandbox.targetYaml()) as Record<string, unknown>;
      edit(target);
      const file = join(dir, name);
      await writeFile(file, stringify(target));
      return file;
    },
    writes: async () => writes(await requestCounts(world)),
    async playbook(name, text) {
      const file = join(dir, name);
      await writeFile(file, text);
      return file;
    },
    journal: (playbook) =>
      readFile(join(stateDir, `${playbook}@sandbox`, 'journal.ndjson'), 'utf8').catch(
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return '';
          throw error;
        },
      ),
    stop: () => world.stop(),
  };
}

/** stdout and stderr of a run, for failure messages and for matching what a person reads */
export function output(result: CliResult): string {
  return `${result.stdout}\n${result.stderr}`;
}

/** A playbook with only dpm.onboard-party (the mesh set up by the test). */
export function onboardOnly(prefix: string, threshold = 2, peers = ['node2', 'node3']): string {
  return `name: onboard-${prefix}
steps:
  - id: onboard
    uses: dpm.onboard-party
    with:
      coordinator: node1
      peers: [${peers.join(', ')}]
      prefix: ${prefix}
      threshold: ${threshold}
`;
}

/** The coordinator runs of a kind on a node (optionally of one prefix). */
export async function runsOf(api: Api, kind: string, prefix?: string): Promise<RunRecord[]> {
  const { body } = await api.get<{ runs: RunRecord[] }>('/workflows');
  return body.runs.filter(
    (r) => r.role === 'Coordinator' && r.kind === kind && (prefix === undefined || r['prefix'] === prefix),
  );
}

/** Every node's own view of the party (refreshed, every owner key resolved). */
export async function partyOnEvery(world: World, prefix: string, nodes: number[]): Promise<PartyRecord[]> {
  return Promise.all(nodes.map((i) => refreshedParty(world.dpm[i]!, prefix)));
}

export function members(party: PartyRecord): string[] {
  return party.participants.map((p) => p.participant_uid).sort();
}

/** Onboards `prefix` by hand (node1 coordinating the given peers), the way an operator would through the API. */
export async function onboardByHand(
  world: World,
  prefix: string,
  peers: number[],
  threshold: number,
): Promise<PartyRecord> {
  const started = await world.dpm[0]!.post<{ instance_name: string }>('/onboarding', {
    party_id_prefix: prefix,
    peer_ids: peers.map((i) => world.participant[i]),
    threshold,
  });
  expect(started.status, started.text).toBe(202);
  await acceptOn(world, peers, started.body.instance_name);
  await waitFor(
    `${started.body.instance_name} to complete`,
    async () => (await runOf(world.dpm[0]!, started.body.instance_name))?.status === 'completed',
    10_000,
  );
  return refreshedParty(world.dpm[0]!, prefix);
}

/** Adds faults through the sandbox's admin API. */
export async function addFaults(world: World, faults: unknown): Promise<void> {
  const response = await world.admin.post('/faults', faults);
  expect(response.status, response.text).toBe(201);
}
