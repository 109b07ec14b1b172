/**
 * Faults around the package and contract steps, through the CLI against a 3-node sandbox: a partial DAR upload
 * stops the playbook at the parity gate before any contracts workflow; a contracts wait that times out is
 * reconciled (contracts status, /workflows, the party's contracts) by the next run, which starts no second run;
 * ledgerbook killed right after the start POST: the next run adopts the started run. Under the fast profile and the
 * realistic one time-scaled (every duration × 0.1), a world per profile.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  acceptOn,
  darFile,
  requestCounts,
  waitFor,
  waitForRun,
  type PartyRecord,
  type RunRecord,
} from '@ledgerbook/sandbox/testing';
import { collect, spawnCli } from './cli.js';
import {
  PLAYBOOKS,
  count,
  packagesWorld,
  playbookCopy,
  samplePackages,
  type PackagesWorld,
} from './packages-setup.js';
import { PROFILES, patienceMs } from './profiles.js';

interface Vetted {
  package_id: string;
}

let w: PackagesWorld | undefined;
afterEach(async () => {
  await w?.stop();
  w = undefined;
});

/** governance-core uploaded (and vetted) on every participant, directly through each node's API */
async function governanceEverywhere(world: PackagesWorld): Promise<void> {
  for (const api of world.world.dpm) {
    const response = await api.post('/dars/upload', { dar_files: [darFile('governance-core-0.2.0.dar')] });
    expect(response.status, response.text).toBe(200);
  }
}

/** The same target (same name, so the same journal) with node2 and node3 run by other operators. */
async function watchOnlyTarget(world: PackagesWorld): Promise<string> {
  const target = parse(readFileSync(world.targetFile, 'utf8')) as {
    nodes: Record<string, { controlled?: boolean }>;
  };
  target.nodes.node2!.controlled = false;
  target.nodes.node3!.controlled = false;
  const file = join(world.dir, 'target-watch.yaml');
  await writeFile(file, stringify(target));
  return file;
}

function runArgs(world: PackagesWorld, playbook: string, target: string): string[] {
  return ['run', playbook, '--target', target, '--state-dir', join(world.dir, 'state')];
}

async function contractRuns(world: PackagesWorld): Promise<RunRecord[]> {
  const response = await world.world.dpm[0]!.get<{ runs: RunRecord[] }>('/workflows');
  return response.body.runs.filter((r) => r.kind === 'Contracts' && r.role === 'Coordinator');
}

async function expectDeployed(world: PackagesWorld): Promise<void> {
  for (const [i, api] of world.world.dpm.entries()) {
    const parties = await api.get<{ parties: PartyRecord[] }>(
      '/decentralized-parties?prefix=alpha&refresh=true',
    );
    expect(
      parties.body.parties[0]?.contracts?.map((c) => c.template_id),
      `node${i + 1} lists the contract`,
    ).toEqual(['Governance.Rules:GovernanceRules']);
  }
}

describe.each(PROFILES)('a partial DAR upload (node3 never vets) (%s)', (_name, profile) => {
  it('stops at the parity gate with exit 1 and the matrix; the deploy step after it starts nothing', async () => {
    w = await packagesWorld(profile);
    const added = await w.world.admin.post('/faults', { kind: 'vet-fails', node: 'node3' });
    expect(added.status).toBe(201);
    const deploy = readFileSync(join(PLAYBOOKS, 'deploy-contracts.yaml'), 'utf8');
    const deployStep = deploy
      .slice(deploy.indexOf('  - id: deploy'))
      .replace('${{ inputs.party }}', 'alpha')
      .replace('${{ inputs.confirmation_timeout_microseconds }}', '86400000000');
    const playbook = await playbookCopy(w.dir, 'distribute-dars.yaml', (text) => `${text}\n${deployStep}`);

    const result = await w.run(playbook);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(1);
    expect(result.stdout).toMatch(/^\s*package\s+node1\s+node2\s+node3$/m);
    for (const p of samplePackages()) {
      expect(result.stdout).toMatch(
        new RegExp(`${p.name} \\(${p.id.slice(0, 12)}\\)\\s+✓\\s+✓\\s+✗ uploaded\\s*$`, 'm'),
      );
    }
    expect(result.stdout).toMatch(/✖ parity: failed/);
    expect(result.stdout).toContain(
      'parity gate: vetted packages differ between participants: node3 has not vetted',
    );
    expect(result.stdout).not.toMatch(/● deploy/);

    const counts = await requestCounts(w.world);
    expect(counts.filter((c) => c.route === '/contracts' && c.method === 'POST')).toEqual([]);
    // what the nodes themselves say: node3 stored the packages but vetted none; the others vetted them all
    for (const [i, api] of w.world.dpm.entries()) {
      const vetted = new Set((await api.get<Vetted[]>('/packages/vetted')).body.map((v) => v.package_id));
      for (const p of samplePackages())
        expect(vetted.has(p.id), `node${i + 1} vetted ${p.name}`).toBe(i !== 2);
    }
  });
});

describe.each(PROFILES)('a contracts wait that times out (%s)', (_name, profile) => {
  it('is reconciled by the next run through contracts status, /workflows and the party; no second run starts', async () => {
    w = await packagesWorld(profile);
    await governanceEverywhere(w);
    const watch = await watchOnlyTarget(w);
    const playbook = await playbookCopy(w.dir, 'deploy-contracts.yaml', (text) =>
      text.replace('timeout: 10m', 'timeout: 1s'),
    );

    // node2 and node3 are other operators' nodes: nobody accepts, the run waits at WaitingForPeers
    const first = await collect(spawnCli(runArgs(w, playbook, watch), { cwd: w.dir }));
    // the wait outlived its budget while the run is still under way: paused (3), the intent kept for reconcile
    expect(first.code, `${first.stdout}\n${first.stderr}`).toBe(3);
    expect(first.stdout).toMatch(/still in progress after 1 s/);
    const [started] = await contractRuns(w);
    expect(started).toMatchObject({ status: 'inprogress', current_step: 'WaitingForPeers' });

    // the other operators accept later; the run completes while ledgerbook is not running
    await acceptOn(w.world, [1, 2], started!.instance_name);
    await waitForRun(w.world.dpm[0]!, started!.instance_name, 'completed', patienceMs(profile));

    const before = await requestCounts(w.world);
    const second = await collect(spawnCli(runArgs(w, playbook, watch), { cwd: w.dir }));
    expect(second.code, `${second.stdout}\n${second.stderr}`).toBe(0);
    const after = await requestCounts(w.world);
    const lines = second.stdout.split('\n');
    const reconciled = lines.findIndex((l) => l.includes('reconciling an earlier attempt'));
    expect(reconciled, second.stdout).toBeGreaterThan(-1);
    expect(lines[reconciled]).toContain('GET /contracts/status on node1: completed');
    expect(lines[reconciled]).toContain(`GET /workflows: Contracts run ${started!.instance_name}: completed`);
    expect(lines[reconciled]).toContain('lists 1 of 1 declared contracts');
    expect(count(after, 'node1', 'GET', '/contracts/status')).toBe(
      count(before, 'node1', 'GET', '/contracts/status') + 1,
    );
    expect(count(after, 'node1', 'POST', '/contracts')).toBe(1);
    expect(await contractRuns(w)).toHaveLength(1);
    await expectDeployed(w);
  });
});

describe.each(PROFILES)('ledgerbook killed right after the contracts start POST (%s)', (_name, profile) => {
  it('the next run adopts the started run: it accepts and waits for it, and the node shows one run', async () => {
    w = await packagesWorld(profile);
    await governanceEverywhere(w);
    const watch = await watchOnlyTarget(w);
    const world = w;

    const child = spawnCli(runArgs(w, join(PLAYBOOKS, 'deploy-contracts.yaml'), watch), { cwd: w.dir });
    const killed = collect(child);
    await waitFor(
      'the contracts start POST',
      async () => count(await requestCounts(world.world), 'node1', 'POST', '/contracts') === 1,
      20_000,
    );
    child.kill('SIGKILL');
    expect((await killed).signal).toBe('SIGKILL');
    expect(await contractRuns(w)).toHaveLength(1);

    // run again with this operator controlling every node: the started run is adopted, never started twice
    const again = await w.run(join(PLAYBOOKS, 'deploy-contracts.yaml'));
    expect(again.code, `${again.stdout}\n${again.stderr}`).toBe(0);
    expect(again.stdout).toMatch(/^resume deploy-contracts/m);
    expect(again.stdout).toMatch(/adopting alpha-contracts-\d+/);
    const runs = await contractRuns(w);
    expect(runs).toHaveLength(1);
    expect(runs[0]?.status).toBe('completed');
    expect(count(await requestCounts(w.world), 'node1', 'POST', '/contracts')).toBe(1);
    await expectDeployed(w);
  });
});
