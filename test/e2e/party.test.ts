/**
 * The party playbooks through the CLI against a sandbox started here, checked on every node's own DPM API: the
 * party with its members and threshold, its credentials, kick and add-party; a second run sends nothing that
 * changes state. The operators' guards, each on its own: a run in progress is adopted, never started twice; only
 * a coordinator's own failure is retried; a start POST whose answer was lost to a SIGKILL is adopted by the next
 * run.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createAjv } from '../../src/playbook/schema-check.js';
import { loadTarget } from '../../src/validation/target-load.js';
import { loadPlaybook } from '../../src/validation/validate.js';
import { stepKinds } from '../../src/steps/index.js';
import { bootstrapMesh, requestCounts, runOf, waitFor } from '@ledgerbook/sandbox/testing';
import { cli } from './cli.js';
import { count } from './packages-setup.js';
import {
  PLAYBOOKS,
  addFaults,
  members,
  onboardByHand,
  onboardOnly,
  output,
  partyOnEvery,
  partyWorld,
  runsOf,
  type PartyWorld,
} from './party-setup.js';

let current: PartyWorld | undefined;
async function world(options: Parameters<typeof partyWorld>[0] = {}): Promise<PartyWorld> {
  current = await partyWorld(options);
  return current;
}
afterEach(async () => {
  await current?.stop();
  current = undefined;
});

/** the party-config a node stores for the party (GET /party-config/{id}) */
async function partyConfig(w: PartyWorld, i: number, party: string): Promise<Record<string, unknown>> {
  const response = await w.world.dpm[i]!.get<Record<string, unknown>>(`/party-config/${party}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

describe('shipped party playbooks', () => {
  it('onboard-party.yaml and change-threshold.yaml converge every node, and a second run of each sends no write', async () => {
    const w = await world();
    const all = [0, 1, 2];

    const onboard = await w.run(join(PLAYBOOKS, 'onboard-party.yaml'));
    expect(onboard.code, output(onboard)).toBe(0);
    const views = await partyOnEvery(w.world, 'alpha', all);
    for (const party of views) {
      expect(party.threshold).toBe(2);
      expect(members(party)).toEqual([...w.world.participant].sort());
      expect(party.party_id).toBe(views[0]!.party_id);
    }
    const partyId = views[0]!.party_id;
    for (const i of all) {
      const config = await partyConfig(w, i, partyId);
      expect(config).toMatchObject({
        member_party_id: `operator${i + 1}::${w.world.participant[i]!.split('::')[1]}`,
        user_id: 'service-account-ledgerbook-ci',
        keycloak_realm: 'ledgerbook',
        keycloak_client_id: 'ledgerbook-ci',
        has_client_secret: true,
        has_username: false,
      });
      const status = await w.world.dpm[i]!.get<{ parties: Array<{ dec_party_id: string; status: unknown }> }>(
        '/auth/status',
      );
      expect(status.body.parties.find((p) => p.dec_party_id === partyId)?.status).toEqual({
        status: 'authenticated',
      });
    }
    // the secret itself never reaches the output
    expect(output(onboard)).not.toContain(w.world.sandbox.secrets()['SANDBOX_CI_CLIENT_SECRET']);

    const before = await w.writes();
    // the modules the run loads, listed as it exits: the build compiled the clients' wire schemas, so a run
    // never loads ajv's schema compiler
    const hook = join(w.dir, 'list-modules.cjs');
    const listed = join(w.dir, 'modules.json');
    await writeFile(
      hook,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(listed)}, JSON.stringify(Object.keys(require.cache))));\n`,
    );
    const again = await cli(
      ['run', join(PLAYBOOKS, 'onboard-party.yaml'), '--target', w.targetFile, '--state-dir', w.stateDir],
      { cwd: w.dir, env: { NODE_OPTIONS: `--require ${hook}` } },
    );
    expect(again.code, output(again)).toBe(0);
    expect(again.stdout).toMatch(/Nothing to do/);
    expect(await w.writes()).toEqual(before);
    const modules = JSON.parse(await readFile(listed, 'utf8')) as string[];
    expect(modules.some((m) => m.includes('/dist/cli/wire-validators/'))).toBe(true); // the compiled validators
    expect(modules.filter((m) => /\/ajv\/dist\/(core|2020|compile\/)/.test(m))).toEqual([]);

    const change = await w.run(join(PLAYBOOKS, 'change-threshold.yaml'));
    expect(change.code, output(change)).toBe(0);
    for (const party of await partyOnEvery(w.world, 'alpha', all)) {
      expect(party.threshold).toBe(3);
      expect(members(party)).toEqual([...w.world.participant].sort());
    }
    expect(await runsOf(w.world.dpm[0]!, 'ChangeThreshold')).toHaveLength(1);

    const afterChange = await w.writes();
    const changeAgain = await w.run(join(PLAYBOOKS, 'change-threshold.yaml'));
    expect(changeAgain.code, output(changeAgain)).toBe(0);
    expect(changeAgain.stdout).toMatch(/Nothing to do/);
    expect(await w.writes()).toEqual(afterChange);
  });

  it('add-party and kick through small playbooks on a 4-node sandbox, each converged on a second run', async () => {
    const w = await world({ nodes: 4 });
    await bootstrapMesh(w.world);
    const party = await onboardByHand(w.world, 'delta', [1, 2], 2);
    const [p1, p2, p3, p4] = w.world.participant as [string, string, string, string];

    const add = await w.playbook(
      'add.yaml',
      `name: add-node4
steps:
  - id: add
    uses: dpm.add-party
    with: { coordinator: node1, party: delta, member: node4, threshold: 3 }
`,
    );
    const added = await w.run(add);
    expect(added.code, output(added)).toBe(0);
    for (const view of await partyOnEvery(w.world, 'delta', [0, 1, 2, 3])) {
      expect(view.party_id).toBe(party.party_id);
      expect(members(view)).toEqual([p1, p2, p3, p4].sort());
      expect(view.threshold).toBe(3);
    }
    let before = await w.writes();
    const addAgain = await w.run(add);
    expect(addAgain.code, output(addAgain)).toBe(0);
    expect(await w.writes()).toEqual(before);

    const kick = await w.playbook(
      'kick.yaml',
      `name: kick-node2
steps:
  - id: kick
    uses: dpm.kick
    with: { coordinator: node1, party: ${party.party_id}, member: node2, threshold: 2 }
`,
    );
    const kicked = await w.run(kick);
    expect(kicked.code, output(kicked)).toBe(0);
    for (const view of await partyOnEvery(w.world, 'delta', [0, 2, 3])) {
      expect(members(view)).toEqual([p1, p3, p4].sort());
      expect(view.threshold).toBe(2);
    }
    // the kicked participant no longer hosts the party
    const gone = await w.world.dpm[1]!.get<{ parties: unknown[] }>(
      '/decentralized-parties?prefix=delta&refresh=true',
    );
    expect(gone.body.parties).toEqual([]);
    before = await w.writes();
    const kickAgain = await w.run(kick);
    expect(kickAgain.code, output(kickAgain)).toBe(0);
    expect(await w.writes()).toEqual(before);
    expect(await runsOf(w.world.dpm[0]!, 'Kick')).toHaveLength(1);
    expect(await runsOf(w.world.dpm[0]!, 'AddParty')).toHaveLength(1);
  });
});

describe('operators who each run their own playbook', () => {
  it.each([
    ['fast', {}],
    ['realistic ×0.1', { profile: 'realistic', timeScale: 0.1 }],
  ] as const)(
    'the coordinator’s operator onboards while the peers’ operator accepts exactly the declared invitation (%s)',
    async (_name, profile) => {
      const w = await world(profile);
      await bootstrapMesh(w.world);
      const nodes = (t: Record<string, unknown>) => t['nodes'] as Record<string, Record<string, unknown>>;
      const coordinatorTarget = await w.target('operator-a.yaml', (t) => {
        nodes(t)['node2']!['controlled'] = false;
        nodes(t)['node3']!['controlled'] = false;
      });
      const peersTarget = await w.target('operator-b.yaml', (t) => {
        nodes(t)['node1']!['controlled'] = false;
      });
      // an invitation nobody declared: it must be reported and left alone
      const rogue = await w.world.dpm[0]!.post('/onboarding', {
        party_id_prefix: 'rogue',
        peer_ids: [w.world.participant[1], w.world.participant[2]],
      });
      expect(rogue.status, rogue.text).toBe(202);
      const accept = await w.playbook(
        'accept.yaml',
        `name: accept-omega
steps:
  - id: accept
    uses: dpm.accept-invitations
    with:
      nodes: [node2, node3]
      expect:
        - { kind: Onboarding, coordinator: node1, prefix: omega, threshold: 2 }
      wait: 30s
`,
      );
      const onboarding = w.spawnOn(coordinatorTarget, await w.playbook('omega.yaml', onboardOnly('omega')));
      const accepting = w.spawnOn(peersTarget, accept);
      const [a, b] = await Promise.all([onboarding.done, accepting.done]);
      expect(a.code, output(a)).toBe(0);
      expect(a.stdout).toContain('waiting for the operators of node2, node3 to accept');
      expect(b.code, output(b)).toBe(0);
      expect(b.stdout).toMatch(/node2: not accepted, not declared: Onboarding from node1 \(prefix rogue/);
      for (const view of await partyOnEvery(w.world, 'omega', [0, 1, 2])) expect(view.threshold).toBe(2);
      // the undeclared invitation is still pending, its run still waiting for the peers
      for (const api of w.world.dpm.slice(1)) {
        const { body } = await api.get<{ invitations: Array<{ workflow_instance?: string }> }>(
          '/invitations',
        );
        expect(body.invitations.map((i) => i.workflow_instance)).toEqual(['rogue-creation']);
      }
      expect((await runOf(w.world.dpm[0]!, 'rogue-creation'))?.current_step).toBe('WaitingForPeers');

      const before = await w.writes();
      const again = await w.spawnOn(peersTarget, accept).done;
      expect(again.code, output(again)).toBe(0);
      expect(await w.writes()).toEqual(before);

      // asked to, the peers' operator declines what it did not declare: the rogue run fails, naming the decliner
      const strict = await w.playbook(
        'strict.yaml',
        (await readFile(accept, 'utf8'))
          .replace('name: accept-omega', 'name: accept-omega-strict')
          .replace('wait: 30s', 'decline_unexpected: true'),
      );
      const declined = await w.spawnOn(peersTarget, strict).done;
      expect(declined.code, output(declined)).toBe(0);
      const rogueRun = await waitFor('the rogue run to fail', async () => {
        const run = await runOf(w.world.dpm[0]!, 'rogue-creation');
        return run?.status === 'failed' ? run : undefined;
      });
      expect(rogueRun.error).toMatch(/^Peer node[23]::[0-9a-f]+ declined the invitation$/);
    },
  );
});

describe('safe-retry guards', () => {
  it('never starts a second run while one is in progress: the run started by hand is adopted', async () => {
    const w = await world();
    await bootstrapMesh(w.world);
    const started = await w.world.dpm[0]!.post<{ instance_name: string }>('/onboarding', {
      party_id_prefix: 'beta',
      peer_ids: [w.world.participant[1], w.world.participant[2]],
      threshold: 2,
    });
    expect(started.status, started.text).toBe(202);

    const file = await w.playbook('beta.yaml', onboardOnly('beta'));
    const result = await w.run(file);
    expect(result.code, output(result)).toBe(0);
    expect(result.stdout).toContain('adopt Onboarding run beta-creation');
    const runs = await runsOf(w.world.dpm[0]!, 'Onboarding', 'beta');
    expect(runs.map((r) => [r.instance_name, r.status])).toEqual([['beta-creation', 'completed']]);
    expect(count(await requestCounts(w.world), 'node1', 'POST', '/onboarding')).toBe(1);
    for (const view of await partyOnEvery(w.world, 'beta', [0, 1, 2])) expect(view.threshold).toBe(2);
  });

  it('retries a failed coordinator run whose own work failed, and refuses to retry a declined one', async () => {
    const w = await world();
    await bootstrapMesh(w.world);
    const party = await onboardByHand(w.world, 'alpha', [1, 2], 2);
    const operator = (i: number): string => `operator${i + 1}::${w.world.participant[i]!.split('::')[1]}`;

    // a contracts run on a coordinator without party credentials fails at once: the coordinator's own failure
    const started = await w.world.dpm[0]!.post<{ instance_name: string }>('/contracts', {
      decentralized_party_id: party.party_id,
      participant_ids: w.world.participant,
      participant_parties: [0, 1, 2].map(operator),
      operator_party: operator(0),
      contracts: [],
    });
    expect(started.status, started.text).toBe(202);
    const instance = started.body.instance_name;
    const failed = await waitFor('the contracts run to fail', async () => {
      const run = await runOf(w.world.dpm[0]!, instance);
      return run?.status === 'failed' ? run : undefined;
    });
    expect(failed.error).toMatch(/^Coordinator workflow failed: Auth not configured/);
    // the peers joined (their rows fail while the coordinator has no run); then the cause is fixed by hand
    for (const i of [1, 2]) {
      const card = await waitFor('the contracts invitation', async () => {
        const { body } = await w.world.dpm[i]!.get<{
          invitations: Array<{ id: string; workflow_instance?: string }>;
        }>('/invitations');
        return body.invitations.find((c) => c.workflow_instance === instance);
      });
      expect((await w.world.dpm[i]!.post('/invitations/accept', { id: card.id })).status).toBe(200);
    }
    const keycloak = w.world.sandbox.urls.idp.issuer.replace(/\/realms\/[^/]+$/, '');
    const put = await w.world.dpm[0]!.put('/party-config', {
      dec_party_id: party.party_id,
      member_party_id: operator(0),
      user_id: 'operator1',
      keycloak_url: keycloak,
      keycloak_realm: 'ledgerbook',
      keycloak_client_id: 'ledgerbook-ci',
      keycloak_client_secret: w.world.sandbox.secrets()['SANDBOX_CI_CLIENT_SECRET'],
    });
    expect(put.status, put.text).toBe(200);

    const retry = await w.playbook(
      'retry.yaml',
      `name: retry-contracts
steps:
  - id: retry
    uses: dpm.workflow
    with: { node: node1, kind: Contracts, party: alpha, action: retry }
`,
    );
    const retried = await w.run(retry);
    expect(retried.code, output(retried)).toBe(0);
    expect((await runOf(w.world.dpm[0]!, instance))?.status).toBe('completed');
    const retries = (): Promise<number> =>
      requestCounts(w.world).then((c) => count(c, 'node1', 'POST', '/workflows/{instance_name}/retry'));
    expect(await retries()).toBe(1);
    const again = await w.run(retry);
    expect(again.code, output(again)).toBe(0);
    expect(await retries()).toBe(1);

    // a declined run is never retried: the step stops and says who declined and how to clear it
    await addFaults(w.world, { kind: 'decline', node: 'node3', workflow: 'Onboarding' });
    const declined = await w.world.dpm[0]!.post<{ instance_name: string }>('/onboarding', {
      party_id_prefix: 'gamma',
      peer_ids: [w.world.participant[1], w.world.participant[2]],
    });
    expect(declined.status).toBe(202);
    await waitFor('the onboarding to be declined', async () => {
      const run = await runOf(w.world.dpm[0]!, 'gamma-creation');
      return run?.status === 'failed';
    });
    const refused = await w.run(
      await w.playbook(
        'retry-gamma.yaml',
        `name: retry-gamma
steps:
  - id: retry
    uses: dpm.workflow
    with: { node: node1, instance: gamma-creation, action: retry }
`,
      ),
    );
    expect(refused.code, output(refused)).toBe(1);
    expect(output(refused)).toMatch(/node3 \(node3::[0-9a-f]+\) declined the invitation/);
    expect(await retries()).toBe(1);
  });

  it('a run killed right after the start POST is adopted by the next run: one run, not two', async () => {
    const w = await world();
    await bootstrapMesh(w.world);
    const file = await w.playbook('kill.yaml', onboardOnly('kappa'));
    // node1 answers slowly, so that the start POST is still in flight when ledgerbook is killed
    await addFaults(w.world, { kind: 'latency', node: 'node1', ms: 300 });
    const { child, done } = w.spawn(file);
    await waitFor(
      'the onboarding start POST',
      async () => count(await requestCounts(w.world), 'node1', 'POST', '/onboarding') === 1,
      20_000,
    );
    child.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');
    expect(await w.journal('onboard-kappa')).toContain('"action":"start-workflow"');
    expect(await runsOf(w.world.dpm[0]!, 'Onboarding', 'kappa')).toHaveLength(1);
    expect((await w.world.admin.call('DELETE', '/faults')).status).toBe(204);

    const again = await w.run(file);
    expect(again.code, output(again)).toBe(0);
    expect(again.stdout).toMatch(/^resume onboard-kappa/m);
    expect(again.stdout).toContain('is adopted, not started again');
    const runs = await runsOf(w.world.dpm[0]!, 'Onboarding', 'kappa');
    expect(runs.map((r) => [r.instance_name, r.status])).toEqual([['kappa-creation', 'completed']]);
    expect(count(await requestCounts(w.world), 'node1', 'POST', '/onboarding')).toBe(1);
    for (const view of await partyOnEvery(w.world, 'kappa', [0, 1, 2])) expect(view.threshold).toBe(2);
  });
});

describe('playbooks/targets/testnet.example.yaml', () => {
  it('validates against schemas/target.schema.json, maps every service parameter, and the party playbooks validate with it', async () => {
    const file = join(PLAYBOOKS, 'targets', 'testnet.example.yaml');
    const text = await readFile(file, 'utf8');
    const schema = JSON.parse(
      await readFile(join(PLAYBOOKS, '..', 'schemas', 'target.schema.json'), 'utf8'),
    ) as Record<string, unknown>;
    const validate = createAjv().compile(schema);
    expect(validate(parse(text)), JSON.stringify(validate.errors)).toBe(true);
    const target = loadTarget(file);
    expect(target.network).toBe('testnet');
    expect(Object.values(target.nodes ?? {}).every((n) => n.party !== undefined)).toBe(true);
    for (const parameter of [
      'LEDGER_HOST',
      'IDP_HOST',
      'IDP_REALM',
      'IDP_CLIENT_ID',
      'IDP_USERNAME',
      'IDP_PASSWORD',
      'PARTY_ID',
      'DECENTRALIZED_PARTY_ID',
      'REGISTRY_URL',
      'GATEWAY_API_URL',
      'LEDGER_NETWORK',
    ]) {
      expect(text, parameter).toMatch(new RegExp(`# .*\\b${parameter}\\b`));
    }
    // names where each secret comes from, never a value
    expect(target.secrets).toEqual({
      IDP_PASSWORD: { env: 'IDP_PASSWORD' },
      SANDBOX_CI_CLIENT_SECRET: { env: 'PARTY_CLIENT_SECRET' },
    });
    for (const playbook of ['onboard-party.yaml', 'change-threshold.yaml']) {
      await expect(
        loadPlaybook(join(PLAYBOOKS, playbook), { registry: stepKinds, target }),
      ).resolves.toBeDefined();
    }
  });
});
