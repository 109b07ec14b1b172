/**
 * Several operators, one set of playbooks: three ledgerbook processes, each with its own target (only its own
 * node controlled, the others read with the peers' read-only login), its own state dir and only its own secret
 * files, run onboard-party, distribute-dars, deploy-contracts and governance.yaml at the same time against one
 * 3-node sandbox. Counted on the nodes' own APIs and the sandbox's request and caller logs: one workflow run per
 * intent, the governance change executed once, every node in the declared state, and no process ever presenting
 * another operator's credentials. Then the same with one process killed (SIGKILL) in the middle and restarted.
 */
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stateOn } from '../sandbox/governance-helpers.js';
import { requestCounts, waitFor } from '../sandbox/helpers.js';
import { executionsOf } from './governance-setup.js';
import { count } from './packages-setup.js';
import {
  PLAYBOOKS,
  members,
  output,
  partyOnEvery,
  partyWorld,
  requestSeen,
  requestsEverywhere,
  runsOf,
  type Operator,
  type PartyWorld,
} from './party-setup.js';
import type { CliResult } from './cli.js';

const PLAYS = ['onboard-party', 'distribute-dars', 'deploy-contracts', 'governance'] as const;
type Play = (typeof PLAYS)[number];
const NODES = ['node1', 'node2', 'node3'];

let current: PartyWorld | undefined;
afterEach(async () => {
  await current?.stop();
  current = undefined;
});

interface Op {
  n: number;
  op: Operator;
}

/** operator n: its target (written by the sandbox for that operator) naming a folder with only its own secrets */
async function operatorOf(w: PartyWorld, n: number): Promise<Op> {
  const secrets = join(w.dir, `operator${n}-secrets`);
  await mkdir(secrets, { mode: 0o700 });
  const own = [
    n === 1 ? 'operator-password' : `operator${n}-password`,
    `node${n}-admin-secret`,
    'viewer-password',
  ];
  for (const file of own) await copyFile(join(w.world.stateDir, 'secrets', file), join(secrets, file));
  const target = join(w.dir, `operator${n}.yaml`);
  await writeFile(target, w.world.sandbox.targetYaml({ operator: n, secretsDir: secrets }));
  return { n, op: w.operator(`operator${n}`, target) };
}

/** the inputs each operator passes: its node's own admin client for the party's credentials */
function argsOf(n: number, play: Play): string[] {
  const own = [
    '--input',
    `keycloak_client_id=node${n}-admin`,
    '--input',
    `ledger_user=service-account-node${n}-admin`,
  ];
  if (play === 'onboard-party' || play === 'deploy-contracts') return own;
  if (play === 'governance') return ['--input', 'threshold=3'];
  return [];
}

/** the four playbooks in order, each to exit 0; `kill` stops the process once its condition holds (SIGKILL) */
async function runAll(
  { n, op }: Op,
  from: Play = 'onboard-party',
  kill?: { play: Play; when: () => Promise<void> },
): Promise<{ killed: Play | undefined; results: CliResult[] }> {
  const results: CliResult[] = [];
  for (const play of PLAYS.slice(PLAYS.indexOf(from))) {
    const { child, done } = op.spawn(join(PLAYBOOKS, `${play}.yaml`), ...argsOf(n, play));
    if (kill?.play === play) {
      await kill.when();
      child.kill('SIGKILL');
      const result = await done;
      expect(result.signal, output(result)).toBe('SIGKILL');
      return { killed: play, results };
    }
    const result = await done;
    expect(result.code, `operator${n} ${play}: ${output(result)}`).toBe(0);
    results.push(result);
  }
  return { killed: undefined, results };
}

/** one run per intent, the change executed once, every node in the declared state */
async function converged(w: PartyWorld): Promise<void> {
  const counts = await requestCounts(w.world);
  const total = (method: string, route: string) =>
    NODES.map((node) => count(counts, node, method, route)).reduce((a, b) => a + b, 0);
  expect(total('POST', '/onboarding')).toBe(1);
  expect(total('POST', '/dars/distribute')).toBe(1);
  expect(total('POST', '/contracts')).toBe(1);
  for (const kind of ['Onboarding', 'Dars', 'Contracts']) {
    const runs = (await Promise.all(w.world.dpm.map((api) => runsOf(api, kind)))).flat();
    expect(
      runs.map((r) => r.status),
      kind,
    ).toEqual(['completed']);
  }
  const views = await partyOnEvery(w.world, 'alpha', [0, 1, 2]);
  for (const view of views) expect(members(view)).toEqual([...w.world.participant].sort());
  const partyId = views[0]!.party_id;
  for (const api of w.world.dpm) {
    expect((await stateOn(api, partyId))?.threshold).toBe(3);
    expect(await executionsOf(api, partyId, 'SelfAction_SetThreshold')).toBe(1);
  }
  // the governance writes: every request is in its node's audit log; one execution and at most one confirmation
  // per member succeeded; a refused one was refused because a concurrent write had consumed the rules contract
  // (the operators' consuming choices race on it), and was then sent again with the new id — nothing twice
  let executed = 0;
  for (const [i, node] of NODES.entries()) {
    const { body } = await w.world.dpm[i]!.get<{ entries: AuditRow[] }>(
      `/governance/audit?party_id=${partyId}&limit=100`,
    );
    for (const event of ['confirm', 'execute'] as const) {
      const rows = body.entries.filter((r) => r.event_type === event);
      expect(rows.length, `${node} ${event}`).toBe(count(counts, node, 'POST', `/governance/${event}`));
      for (const refused of rows.filter((r) => r.status !== 'success'))
        expect(refused.error_message, `${node} ${event}`).toMatch(/CONTRACT_NOT_FOUND|LOCKED_CONTRACTS/);
      const succeeded = rows.filter((r) => r.status === 'success').length;
      if (event === 'confirm') expect(succeeded, `${node} confirmations`).toBeLessThanOrEqual(1);
      else executed += succeeded;
    }
  }
  expect(executed).toBe(1);
}

interface AuditRow {
  event_type: string;
  status: string;
  error_message?: string | null;
}

/**
 * Every accepted request on node N came from operator N or the peers' read-only viewer login, and node N acted for
 * the party only with its own admin client's credentials (the ones operator N saved in its party config)
 */
async function ownCredentialsOnly(w: PartyWorld): Promise<void> {
  const { body } = await w.world.admin.get<{
    callers: Array<{ node: string; api: string; who: string; count: number }>;
  }>('/callers');
  for (const c of body.callers) {
    const n = c.node.slice('node'.length);
    const allowed = c.api === 'party' ? [`service-account-node${n}-admin`] : ['viewer', `operator${n}`];
    expect(allowed, JSON.stringify(c)).toContain(c.who);
  }
  // each operator acted on its own node, and read the others'; each node acted for the party
  for (const [i, node] of NODES.entries()) {
    const seen = (api: string, who: string) =>
      body.callers.some((c) => c.node === node && c.api === api && c.who === who);
    expect(seen('dpm', `operator${i + 1}`), node).toBe(true);
    expect(seen('dpm', 'viewer'), node).toBe(true);
    expect(seen('party', `service-account-node${i + 1}-admin`), node).toBe(true);
  }
}

/**
 * Who is killed, in which playbook, once `node` has seen the `times`-th POST `route` (`any` node: summed over the
 * nodes). In governance the first confirmation anywhere: the victim may have sent it (killed between the confirm
 * and its checkpoint) or be waiting for the others; which member confirms first is the race's.
 */
const KILLS: Array<{ victim: number; play: Play; route: string; node: string; times: number }> = [
  { victim: 1, play: 'deploy-contracts', route: '/contracts', node: 'node1', times: 1 },
  { victim: 2, play: 'onboard-party', route: '/invitations/accept', node: 'node2', times: 1 },
  { victim: 3, play: 'governance', route: '/governance/confirm', node: 'any', times: 1 },
];

async function seen(w: PartyWorld, node: string, route: string, times: number): Promise<void> {
  if (node !== 'any') return requestSeen(w.world, node, 'POST', route, times);
  await waitFor(
    `POST ${route} on any node`,
    async () => (await requestsEverywhere(w.world, 'POST', route)) >= times,
    30_000,
    2,
  );
}

describe('three operators, each with its own target, state dir and credentials', () => {
  it('run the four playbooks at the same time: one run per intent, the threshold change executed once', async () => {
    const w = (current = await partyWorld());
    const ops = await Promise.all([1, 2, 3].map((n) => operatorOf(w, n)));
    await w.world.admin.call('DELETE', '/requests');
    await Promise.all(ops.map((op) => runAll(op)));
    await converged(w);
    await ownCredentialsOnly(w);

    // again, all three: nothing changes state
    const before = await w.writes();
    await Promise.all(ops.map((op) => runAll(op)));
    expect(await w.writes()).toEqual(before);
  }, 240_000);

  it.each(KILLS)(
    'operator$victim killed in $play once $node saw POST $route and restarted: every playbook still converges, once',
    async ({ victim, play, route, node, times }) => {
      const w = (current = await partyWorld());
      const ops = await Promise.all([1, 2, 3].map((n) => operatorOf(w, n)));
      await w.world.admin.call('DELETE', '/requests');
      const runs = ops.map((op) =>
        op.n === victim
          ? runAll(op, 'onboard-party', {
              play,
              when: () => seen(w, node, route, times),
            })
          : runAll(op),
      );
      const { killed } = await runs[victim - 1]!;
      expect(killed).toBe(play);
      // restarted with the same state dir, from the playbook it was killed in
      const restarted = runAll(ops[victim - 1]!, play);
      await Promise.all([...runs.filter((_, i) => i !== victim - 1), restarted]);
      await converged(w);
      await ownCredentialsOnly(w);
    },
    240_000,
  );
});
