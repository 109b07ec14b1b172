import { describe, expect, it } from 'vitest';
import type { ContractInfo, DecentralizedParty } from '../../clients/dpm-wire.js';
import type { Intent } from '../contract.js';
import { dpmDeployContracts } from './deploy-contracts.js';
import {
  MEMBER,
  PARTICIPANT,
  PARTY,
  fakeContext,
  ns,
  run,
  target,
  vetted,
  type FakeNode,
} from './packages-testing.js';

type With = Parameters<typeof dpmDeployContracts.observe>[1];

const GOV_ID = '0ba5f6c01995aa4b2ed054003750e1f2af09575cdf82251aeed0b9599b0d26dc';
const GOV_OLD = 'aa'.repeat(32);
const gov = vetted(GOV_ID, 'governance-core', '0.2.0');
const govOld = vetted(GOV_OLD, 'governance-core', '0.1.9');
const RULES: ContractInfo = {
  contract_id: `00${'12'.repeat(32)}`,
  template_id: 'Governance.Rules:GovernanceRules',
  package_id: GOV_ID,
  package_name: 'governance-core',
  package_version: '0.2.0',
  created_at: '2026-01-01T00:00:00Z',
};
const w: With = {
  coordinator: 'node1',
  party: 'alpha',
  participants: ['node1', 'node2', 'node3'],
  contracts: [
    {
      id: 'rules',
      package_id: '#governance-core',
      module_name: 'Governance.Rules',
      entity_name: 'GovernanceRules',
      fields: [{ type: 'decentralized_party' }, { type: 'governance_threshold' }],
    },
  ],
};
const withParties = target({
  node1: { party: MEMBER.node1 },
  node2: { party: MEMBER.node2 },
  node3: { party: MEMBER.node3 },
});

function party(contracts?: ContractInfo[]): DecentralizedParty {
  return {
    party_id: PARTY,
    threshold: 2,
    owners: [ns('01'), ns('02'), ns('03')],
    participants: Object.values(PARTICIPANT).map((p) => ({
      participant_uid: p,
      permission: 'submission' as const,
    })),
    ...(contracts ? { contracts } : {}),
  };
}

const authenticated = {
  parties: [
    {
      dec_party_id: PARTY,
      member_party_id: MEMBER.node1,
      user_id: 'operator1',
      status: { status: 'authenticated' as const },
    },
  ],
};

/** node1 coordinates; every node vetted governance-core 0.2.0 (node1 also an older one) */
function nodes(node1: Partial<FakeNode> = {}, others: Partial<FakeNode> = {}): Record<string, FakeNode> {
  return {
    node1: { parties: [party()], vetted: [govOld, gov], auth: authenticated, ...node1 },
    node2: { vetted: [gov], ...others },
    node3: { vetted: [gov], ...others },
  };
}

async function planOf(
  fakeNodes: Record<string, FakeNode>,
  t = withParties,
  given: With = w,
  mode: 'plan' | 'run' = 'run',
) {
  const fake = fakeContext(t, fakeNodes, '.', mode);
  const state = await dpmDeployContracts.observe(fake.ctx, given);
  return { fake, plan: () => dpmDeployContracts.plan(given, state, { key: '', value: given }) };
}

describe('dpm.deploy-contracts: observe and plan', () => {
  it('is in sync when the party lists the template in the named package; reads no more than it needs', async () => {
    const governance = {
      contract_id: RULES.contract_id,
      vault_manager: PARTY,
      members: Object.values(MEMBER),
      threshold: 2,
      out_of_date: false,
    };
    const { fake, plan } = await planOf(nodes({ parties: [party([RULES])], governance }));
    expect(plan()).toEqual({
      changes: [],
      outputs: { party: PARTY, contracts: [{ ...RULES }], governance },
    });
    // the runs of every member node: a run of these contracts still in flight elsewhere is not in sync
    expect(fake.calls).toEqual([
      'node1 decentralizedParties',
      'node1 workflows',
      'node2 workflows',
      'node3 workflows',
      'node1 governanceState',
    ]);
  });

  it('the contracts listed, an invitation of their completed run still pending on a node it controls: declines it', async () => {
    const done = run({
      instance_name: 'alpha-contracts-9',
      kind: 'Contracts',
      status: 'completed',
      dec_party_id: PARTY,
      package_names: ['governance-core'],
    });
    const card = {
      id: 'contracts-02aa-alpha-contracts-9',
      invitation_type: 'Contracts' as const,
      coordinator_pubkey: `02${'aa'.repeat(32)}`,
      coordinator_name: 'node1',
      received_at: 100,
      workflow_instance: 'alpha-contracts-9',
    };
    const fakeNodes = nodes({ parties: [party([RULES])], runs: [done] });
    fakeNodes['node3'] = { ...fakeNodes['node3']!, invitations: [card] };
    const { fake, plan } = await planOf(fakeNodes);
    expect(plan().changes).toEqual([
      expect.objectContaining({
        action: 'delete',
        summary: expect.stringMatching(
          /^decline the invitation of alpha-contracts-9 left pending on node3: the run completed without it/,
        ) as unknown,
      }),
    ]);
    // a node this target does not control keeps its own: it is its operator's to answer
    const { plan: notOurs } = await planOf(
      fakeNodes,
      target({ node1: {}, node2: {}, node3: { controlled: false } }),
    );
    expect(notOurs().changes).toEqual([]);
    expect(fake.calls).toContain('node3 invitations');
  });

  it('plans one start naming the resolved package (#name → highest vetted version) and the participants', async () => {
    const { fake, plan } = await planOf(nodes());
    const { changes } = plan();
    expect(changes).toEqual([
      {
        action: 'start',
        summary: `start a Contracts workflow on node1 for ${PARTY}: create Governance.Rules:GovernanceRules (governance-core:0.2.0 0ba5f6c01995) with node1, node2, node3`,
        details: {
          coordinator: 'node1',
          party: PARTY,
          contracts: ['rules'],
          participants: ['node1', 'node2', 'node3'],
        },
      },
    ]);
    expect(fake.logs.map((l) => l.level)).toEqual(['info']);
    expect(fake.logs[0]?.message).toMatch(/governance-core:0\.2\.0 \(0ba5f6c01995\) {2}✓ {6}✓ {6}✓/);
  });

  it('refuses to start when a participant has not vetted the package, naming it; the matrix is printed', async () => {
    const { fake, plan } = await planOf({ ...nodes(), node3: { vetted: [govOld] } });
    expect(plan).toThrow(
      `refusing to start the Contracts workflow for ${PARTY}: vetted packages differ between participants: node3 has not vetted governance-core:0.2.0 (0ba5f6c01995)`,
    );
    expect(fake.logs.map((l) => l.level)).toEqual(['error']);
    expect(fake.logs[0]?.message).toMatch(/✓ {6}✓ {6}✗$/m);
    expect(fake.calls).toContain('node3 comparePeers');
  });

  it('in `plan`, says what would be refused instead of failing (an earlier step may still fix it)', async () => {
    const lacking = await planOf({ ...nodes(), node3: { vetted: [govOld] } }, withParties, w, 'plan');
    expect(lacking.plan().changes).toEqual([
      expect.objectContaining({
        action: 'start',
        summary: expect.stringMatching(
          /with node1, node2, node3; as things stand now it would refuse: vetted packages differ between participants: node3 has not vetted governance-core:0\.2\.0/,
        ) as string,
      }),
    ]);
    const noParty = await planOf(nodes({ parties: [] }), withParties, w, 'plan');
    expect(noParty.plan().changes[0]?.summary).toBe(
      'start a Contracts workflow on node1 for the party alpha once it exists: node1 lists no decentralized party alpha now',
    );
  });

  it('refuses a #name the coordinator has not vetted', async () => {
    const { plan } = await planOf(nodes({ vetted: [] }));
    expect(plan).toThrow('node1 has not vetted any package named governance-core');
  });

  it('refuses when the party does not exist on the coordinator', async () => {
    const { fake, plan } = await planOf(nodes({ parties: [] }));
    expect(plan).toThrow('node1 lists no decentralized party alpha');
    expect(fake.calls).toEqual(['node1 decentralizedParties']);
  });

  it("does not refuse over another operator's coordinator lacking the party credentials: the plan waits for that operator's run", async () => {
    const foreign = target({
      node1: { party: MEMBER.node1, controlled: false },
      node2: { party: MEMBER.node2 },
      node3: { party: MEMBER.node3 },
    });
    const { plan } = await planOf(nodes({ auth: { parties: [] } }), foreign);
    const changes = plan().changes;
    expect(changes.map((c) => c.action)).toEqual(['wait']);
    expect(changes[0]?.summary).toMatch(
      /^wait for the operator of node1 \(not controlled here\) to start a Contracts workflow on node1 for alpha::.*; then follow that run/,
    );
  });

  it('refuses without the party credentials on the coordinator; an insecure node (mock) needs none', async () => {
    const none = await planOf(nodes({ auth: { parties: [] } }));
    expect(none.plan).toThrow(
      `refusing to start the Contracts workflow for ${PARTY}: node1 has no credentials for the party`,
    );
    const failed = await planOf(
      nodes({
        auth: {
          parties: [
            {
              ...authenticated.parties[0]!,
              status: { status: 'failed' as const, error: 'invalid_client' },
            },
          ],
        },
      }),
    );
    expect(failed.plan).toThrow('node1 cannot authenticate as the party: invalid_client');
    const mock = await planOf(
      nodes({
        auth: {
          parties: [
            {
              dec_party_id: `x::${ns('99')}`,
              member_party_id: MEMBER.node1,
              user_id: 'u',
              status: { status: 'mock' as const },
            },
          ],
        },
      }),
    );
    expect(mock.plan().changes[0]?.action).toBe('start');
  });

  it('takes member parties from `with`, then the target, then the node’s credentials; refuses when none is known', async () => {
    const bare = target({ node1: {}, node2: {}, node3: {} });
    const given: With = { ...w, participants: ['node1', { node: 'node2', party: MEMBER.node2 }, 'node3'] };
    const unknown = await planOf(nodes(), bare, given);
    expect(unknown.plan).toThrow('no member party for node3');
    const fromAuth = await planOf(
      nodes({}, { auth: { parties: [{ ...authenticated.parties[0]!, member_party_id: MEMBER.node3 }] } }),
      bare,
      given,
    );
    expect(fromAuth.plan().changes[0]?.action).toBe('start');
    expect(fromAuth.fake.calls).toContain('node3 authStatus');
    expect(fromAuth.fake.calls).not.toContain('node2 authStatus');
  });

  it('adopts a run of these contracts in progress instead of starting another, wherever it is coordinated', async () => {
    const running = run({
      instance_name: 'alpha-contracts-1',
      kind: 'Contracts',
      status: 'inprogress',
      dec_party_id: PARTY,
      package_names: ['governance-core'],
    });
    const { plan } = await planOf(nodes({ runs: [running] }));
    expect(plan().changes).toEqual([
      expect.objectContaining({ action: 'wait', details: { node: 'node1', instance: 'alpha-contracts-1' } }),
    ]);
    // another operator's node coordinates it: followed there
    const elsewhere = await planOf(nodes({}, { runs: [running] }));
    expect(elsewhere.plan().changes[0]?.summary).toMatch(
      /^follow Contracts run alpha-contracts-1: inprogress at WaitingForPeers .* on node2 \(create governance-core\)/,
    );
    // the contract is listed already, but its run still lingers: not in sync until it is done
    const lingering = await planOf(nodes({ parties: [party([RULES])], runs: [running] }));
    expect(lingering.plan().changes.map((c) => c.action)).toEqual(['wait']);
  });

  it('refuses to start beside another change of the party in flight on any member, naming it', async () => {
    const other = run({
      instance_name: 'alpha-change-threshold-1',
      kind: 'ChangeThreshold',
      status: 'inprogress',
      dec_party_id: PARTY,
      new_threshold: 3,
    });
    const { plan } = await planOf(nodes({}, { runs: [other] }));
    expect(plan).toThrow(
      `refusing to start the Contracts workflow for ${PARTY}: node2 is already changing party ${PARTY}: ChangeThreshold run alpha-change-threshold-1`,
    );
  });

  it('does not start again after a peer declined the last run, naming the node', async () => {
    const declined = run({
      instance_name: 'alpha-contracts-1',
      kind: 'Contracts',
      status: 'failed',
      dec_party_id: PARTY,
      error: `Peer ${PARTICIPANT.node3} declined the invitation`,
    });
    const { plan } = await planOf(nodes({ runs: [declined] }));
    expect(plan).toThrow('its last Contracts run alpha-contracts-1 was declined by node3');
  });

  it('check(): unknown nodes and contract ids used twice', () => {
    const findings = dpmDeployContracts.check!(
      {
        ...w,
        coordinator: 'node7',
        participants: ['node1', { node: 'node1' }],
        contracts: [w.contracts[0]!, w.contracts[0]!],
      },
      withParties,
      '.',
    );
    expect(findings.map((f) => `${f.pointer} ${f.message}`)).toEqual([
      "/coordinator the target has no node 'node7'",
      '/participants/1/node node1 is listed twice',
      "/contracts/1/id contract id 'rules' is used by entries 0 and 1",
    ]);
  });
});

describe('dpm.deploy-contracts: reconcile after a timeout or an ambiguous answer', () => {
  const at = Math.floor(Date.now() / 1000) - 10;
  const intents: Intent[] = [
    { action: 'start-workflow', node: 'node1', kind: 'Contracts', at, party: PARTY },
  ];
  const started = (status: 'inprogress' | 'completed' | 'failed', error?: string) =>
    run({
      instance_name: 'alpha-contracts-9',
      kind: 'Contracts',
      status,
      dec_party_id: PARTY,
      ...(error ? { error } : {}),
    });

  async function reconcile(fakeNodes: Record<string, FakeNode>) {
    const fake = fakeContext(withParties, fakeNodes);
    const verdict = await dpmDeployContracts.reconcile(fake.ctx, w, { key: '', value: w }, intents);
    return { fake, verdict };
  }

  it('reads the contracts status, /workflows and the party before anything else, and says what it saw', async () => {
    const { fake, verdict } = await reconcile(
      nodes({ runs: [started('inprogress')], legacy: { Contracts: { status: 'inprogress' } } }),
    );
    expect(verdict).toEqual({ status: 'not-done', note: 'adopting alpha-contracts-9' });
    expect(fake.calls.slice(0, 3)).toEqual([
      'node1 legacyStatus Contracts',
      'node1 workflows',
      'node1 decentralizedParties',
    ]);
    expect(fake.logs.at(-1)?.message).toBe(
      `reconciling an earlier attempt: GET /contracts/status on node1: inprogress; GET /workflows: Contracts run alpha-contracts-9: inprogress at WaitingForPeers (1/5); ${PARTY} lists 0 of 1 declared contracts`,
    );
  });

  it('is done when the party lists every declared contract', async () => {
    const { verdict } = await reconcile(nodes({ parties: [party([RULES])], runs: [started('completed')] }));
    expect(verdict).toEqual({
      status: 'done',
      outputs: { party: PARTY, contracts: [{ ...RULES }], governance: null },
    });
  });

  it('is ambiguous when the run completed but the contracts are not listed', async () => {
    const { verdict } = await reconcile(nodes({ runs: [started('completed')] }));
    expect(verdict).toMatchObject({
      status: 'ambiguous',
      seen: expect.stringContaining('lists 0 of 1') as string,
    });
  });

  it('is not done when the run failed (nothing was created) or never reached the node', async () => {
    const failed = await reconcile(
      nodes({
        runs: [
          started(
            'failed',
            'Coordinator workflow failed: Auth not configured, cannot run contracts workflow',
          ),
        ],
      }),
    );
    expect(failed.verdict).toEqual({
      status: 'not-done',
      note: 'Contracts run alpha-contracts-9: failed at WaitingForPeers (1/5): Coordinator workflow failed: Auth not configured, cannot run contracts workflow; nothing was created',
    });
    const lost = await reconcile(nodes());
    expect(lost.verdict).toEqual({ status: 'not-done', note: 'the start did not reach the node' });
  });

  it('is ambiguous when the node reports a Contracts run in progress that /workflows does not list', async () => {
    const { verdict } = await reconcile(nodes({ legacy: { Contracts: { status: 'inprogress' } } }));
    expect(verdict).toMatchObject({
      status: 'ambiguous',
      hint: expect.stringContaining('GET /workflows does not list') as string,
    });
  });

  it('ignores runs created before the start was recorded', async () => {
    const old = { ...started('inprogress'), created_at: at - 60 };
    const { verdict } = await reconcile(nodes({ runs: [old] }));
    expect(verdict).toEqual({ status: 'not-done', note: 'the start did not reach the node' });
  });
});
