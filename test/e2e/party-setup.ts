/**
 * What the party e2e tests share: a sandbox started in the test with its target file, CLI runs against it with
 * their own state dir, small playbooks written in the test, and reads of the outcome through every node's own
 * DPM API (never through ledgerbook's output).
 */
import type { ChildProcess } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { parse, stringify } from 'yaml';
import type { SandboxOptions } from '@ledgerbook/sandbox';
import {
  acceptOn,
  bootstrapMesh,
  darFile,
  onboard,
  refreshedParty,
  requestCounts,
  runOf,
  startWorld,
  waitFor,
  type Api,
  type PartyRecord,
  type RunRecord,
  type World,
} from '@ledgerbook/sandbox/testing';
import { cli, collect, spawnCli, tempDir, type CliResult } from './cli.js';
import { count, operatorParty, writes } from './packages-setup.js';

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
  /**
   * Another ledgerbook installation (an operator, a CI runner) with its own state dir, on this target file or
   * another one: its runs share nothing with the others' but the services.
   */
  operator(name: string, targetFile?: string): Operator;
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

export interface Operator {
  stateDir: string;
  run(playbook: string, ...args: string[]): Promise<CliResult>;
  spawn(playbook: string, ...args: string[]): { child: ChildProcess; done: Promise<CliResult> };
  /** the journal of a playbook's runs in this operator's state dir */
  journal(playbook: string): Promise<string>;
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
  const journalIn = (state: string, playbook: string): Promise<string> =>
    readFile(join(state, `${playbook}@sandbox`, 'journal.ndjson'), 'utf8').catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return '';
        throw error;
      },
    );
  return {
    world,
    dir,
    targetFile,
    stateDir,
    run: (playbook, ...extra) => cli(args(playbook, extra), { cwd: dir }),
    spawn: (playbook, ...extra) => spawnOn(targetFile, playbook, ...extra),
    spawnOn,
    operator(name, target = targetFile) {
      const state = join(dir, `state-${name}`);
      const argv = (playbook: string, extra: string[]): string[] => [
        'run',
        playbook,
        '--target',
        target,
        '--state-dir',
        state,
        ...extra,
      ];
      return {
        stateDir: state,
        run: (playbook, ...extra) => cli(argv(playbook, extra), { cwd: dir }),
        spawn(playbook, ...extra) {
          const child = spawnCli(argv(playbook, extra), { cwd: dir });
          return { child, done: collect(child) };
        },
        journal: (playbook) => journalIn(state, playbook),
      };
    },
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
    journal: (playbook) => journalIn(stateDir, playbook),
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

/**
 * A node's live view of the party (`refresh=true`): members, threshold and contracts as they are now. Under the
 * realistic profile the cache lags a live read by a fraction of a second, so this is what the tests on it read.
 */
export async function liveParty(api: Api, prefix: string): Promise<PartyRecord> {
  const { body } = await api.get<{ parties: PartyRecord[] }>(
    `/decentralized-parties?prefix=${prefix}&refresh=true`,
  );
  const party = body.parties[0];
  expect(party, `party ${prefix} on ${api.base}`).toBeDefined();
  return party!;
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

/**
 * A sandbox with the realistic profile (the reference's timings: a workflow takes seconds), time-scaled by
 * `timeScale` (default 1), whose preparation ran fast: the sandbox is started fast on a state dir, `prepare`d, then
 * started again realistic on the same state dir, which keeps the mesh, parties, credentials and packages.
 */
export async function realisticWorld(
  prepare: (world: World) => Promise<unknown>,
  timeScale = 1,
): Promise<PartyWorld> {
  const stateDir = await tempDir('lb-sandbox-');
  const fast = await startWorld({ stateDir });
  try {
    await prepare(fast);
  } finally {
    await fast.stop();
  }
  const w = await partyWorld({ stateDir, profile: 'realistic', timeScale });
  return {
    ...w,
    stop: async () => {
      await w.stop();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

/** The mesh and party `alpha` (node1 coordinating node2 and node3, threshold 2). */
export async function alphaOnboarded(world: World): Promise<PartyRecord> {
  await bootstrapMesh(world);
  return onboard(world, 'alpha', 2);
}

/** governance-core uploaded and vetted on every node, through each node's own API. */
export async function governanceEverywhere(world: World): Promise<void> {
  for (const api of world.dpm) {
    const upload = await api.post('/dars/upload', { dar_files: [darFile('governance-core-0.2.0.dar')] });
    expect(upload.status, upload.text).toBe(200);
  }
}

/**
 * The party's credentials on every node (the CI client of this sandbox's identity provider). A sandbox started
 * again listens on other ports: set them on the sandbox that runs the workflows.
 */
export async function partyCredentials(world: World, prefix = 'alpha'): Promise<void> {
  const party = await refreshedParty(world.dpm[0]!, prefix);
  const keycloak = world.sandbox.urls.idp.issuer.replace(/\/realms\/[^/]+$/, '');
  for (const [i, api] of world.dpm.entries()) {
    const config = await api.put('/party-config', {
      dec_party_id: party.party_id,
      member_party_id: operatorParty(world, i),
      user_id: `operator${i + 1}`,
      keycloak_url: keycloak,
      keycloak_realm: 'ledgerbook',
      keycloak_client_id: 'ledgerbook-ci',
      keycloak_client_secret: world.sandbox.secrets()['SANDBOX_CI_CLIENT_SECRET'],
    });
    expect(config.status, config.text).toBe(200);
  }
}

/** What a Contracts run of `alpha` needs, but the credentials (`partyCredentials`): the party, governance-core vetted everywhere. */
export async function contractsPrepared(world: World): Promise<void> {
  await alphaOnboarded(world);
  await governanceEverywhere(world);
}

/** A playbook with one dpm.deploy-contracts step creating GovernanceRules for `alpha`, coordinated by `coordinator`. */
export function deployOnly(coordinator: string, timeout = '1m'): string {
  return `name: deploy-alpha
steps:
  - id: deploy
    uses: dpm.deploy-contracts
    with:
      coordinator: ${coordinator}
      party: alpha
      participants: [node1, node2, node3]
      contracts:
        - id: governance-rules
          name: governance-core
          package_id: '#governance-core'
          module_name: Governance.Rules
          entity_name: GovernanceRules
          fields:
            - { type: decentralized_party }
            - type: party_set
              parties: ['\${{ target.nodes.node1.party }}', '\${{ target.nodes.node2.party }}', '\${{ target.nodes.node3.party }}']
            - { type: governance_threshold }
            - { type: rel_time, microseconds: 86400000000 }
            - { type: none }
      timeout: ${timeout}
`;
}

/** A playbook with one dpm.change-threshold step on `alpha`. */
export function thresholdOnly(coordinator: string, threshold: number, timeout = '1m'): string {
  return `name: threshold-alpha
steps:
  - id: change
    uses: dpm.change-threshold
    with: { coordinator: ${coordinator}, party: alpha, threshold: ${threshold}, timeout: ${timeout} }
`;
}

/** Waits until `node` received `count` requests `METHOD route` (the admin API's request log). */
export async function requestSeen(
  world: World,
  node: string,
  method: string,
  route: string,
  times = 1,
  timeoutMs = 30_000,
  intervalMs = 2,
): Promise<void> {
  await waitFor(
    `${method} ${route} on ${node}`,
    async () => count(await requestCounts(world), node, method, route) >= times,
    timeoutMs,
    intervalMs,
  );
}

/** `METHOD route` requests summed over every node. */
export async function requestsEverywhere(world: World, method: string, route: string): Promise<number> {
  return (await requestCounts(world))
    .filter((c) => c.method === method && c.route === route)
    .reduce((sum, c) => sum + c.count, 0);
}
