/**
 * Several operators, one set of playbooks, under the durations of a real network: three ledgerbook processes, each
 * with its own target (only its own node controlled, the others read with the peers' read-only login), its own
 * state dir and only its own secret files, run onboard-party, distribute-dars, deploy-contracts and governance.yaml
 * at the same time against one 3-node sandbox — the fast profile, and the realistic one time-scaled (every
 * duration of `--profile realistic` × 0.1: the same order of events, a tenth of the wait). One of them watches in
 * a pseudo-terminal. Counted on the nodes' own APIs and the sandbox's request and caller logs: every process exits
 * 0; one workflow run per intent, one rules contract, the governance change executed once; no invitation and no
 * confirmation left pending; a process that sent nothing says so; no process ever presents another operator's
 * credentials. Then, realistic: one process SIGKILLed at a random moment and restarted; a member node restarted
 * in the middle of a workflow; two processes racing deploy-contracts and change-threshold in the same second while
 * a co-operator runs change-threshold.yaml unchanged.
 */
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxOptions } from '@ledgerbook/sandbox';
import { confirmationsOn, stateOn } from '@ledgerbook/sandbox/testing';
import { requestCounts } from '@ledgerbook/sandbox/testing';
import { executionsOf } from './governance-setup.js';
import { count } from './packages-setup.js';
import {
  PLAYBOOKS,
  addFaults,
  alphaOnboarded,
  contractsPrepared,
  members,
  output,
  partyOnEvery,
  partyWorld,
  realisticWorld,
  requestSeen,
  runsOf,
  type Operator,
  type PartyWorld,
} from './party-setup.js';
import { collect, screenText, spawnCliInTerminal, type CliResult } from './cli.js';

const PLAYS = ['onboard-party', 'distribute-dars', 'deploy-contracts', 'governance'] as const;
type Play = (typeof PLAYS)[number];
const NODES = ['node1', 'node2', 'node3'];
/** the realistic profile, every duration × 0.1 */
const REALISTIC: Partial<SandboxOptions> = { profile: 'realistic', timeScale: 0.1 };

let current: PartyWorld | undefined;
afterEach(async () => {
  await current?.stop();
  current = undefined;
});

interface Op {
  n: number;
  op: Operator;
  target: string;
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
  return { n, op: w.operator(`operator${n}`, target), target };
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

/** `run <play>` as operator n; in a pseudo-terminal (the task tree a person watches) when `terminal` */
function spawnPlay({ n, op, target }: Op, w: PartyWorld, play: Play, terminal: boolean) {
  const file = join(PLAYBOOKS, `${play}.yaml`);
  if (!terminal) return op.spawn(file, ...argsOf(n, play));
  const child = spawnCliInTerminal(
    ['run', file, '--target', target, '--state-dir', op.stateDir, ...argsOf(n, play)],
    { cwd: w.dir },
  );
  return { child, done: collect(child, 120_000) };
}

type Results = Partial<Record<Play, CliResult>>;

/** the four playbooks in order, each to exit 0; `kill` stops the process once its condition holds (SIGKILL) */
async function runAll(
  w: PartyWorld,
  o: Op,
  options: { from?: Play; kill?: { play: Play; when: () => Promise<void> }; terminal?: boolean } = {},
): Promise<{ killed: Play | undefined; results: Results }> {
  const results: Results = {};
  for (const play of PLAYS.slice(PLAYS.indexOf(options.from ?? 'onboard-party'))) {
    const { child, done } = spawnPlay(o, w, play, options.terminal === true);
    if (options.kill?.play === play) {
      const outcome = await Promise.race([done, options.kill.when().then(() => undefined)]);
      if (outcome === undefined) {
        child.kill('SIGKILL');
        const result = await done;
        expect(result.signal, output(result)).toBe('SIGKILL');
        return { killed: play, results };
      }
      // the moment came after the playbook ended: the next one is killed at its start instead
      options.kill = { play: PLAYS[PLAYS.indexOf(play) + 1] ?? play, when: () => Promise.resolve() };
      if (play === 'governance') options.kill = undefined;
      results[play] = outcome;
      expect(outcome.code, `operator${o.n} ${play}: ${output(outcome)}`).toBe(0);
      continue;
    }
    const result = await done;
    expect(result.code, `operator${o.n} ${play}: ${output(result)}`).toBe(0);
    results[play] = result;
  }
  return { killed: undefined, results };
}

/**
 * One run per intent, the change executed once, every node in the declared state, and nothing left pending: no
 * invitation on any node, no confirmation of the governance decision.
 */
async function converged(
  w: PartyWorld,
  options: { memberRestartedInContracts?: boolean } = {},
): Promise<void> {
  const counts = await requestCounts(w.world);
  const total = (method: string, route: string) =>
    NODES.map((node) => count(counts, node, method, route)).reduce((a, b) => a + b, 0);
  expect(total('POST', '/onboarding')).toBe(1);
  expect(total('POST', '/dars/distribute')).toBe(1);
  // a member restarting while the DPM checks its peers' versions refuses the start (409, could not verify the
  // version) and the operator sends it again: more than one request then, still one run (checked below)
  if (options.memberRestartedInContracts) expect(total('POST', '/contracts')).toBeGreaterThanOrEqual(1);
  else expect(total('POST', '/contracts')).toBe(1);
  for (const kind of ['Onboarding', 'Dars', 'Contracts']) {
    const runs = (await Promise.all(w.world.dpm.map((api) => runsOf(api, kind)))).flat();
    expect(
      runs.map((r) => r.status),
      kind,
    ).toEqual(['completed']);
  }
  const views = await partyOnEvery(w.world, 'alpha', [0, 1, 2]);
  for (const view of views) expect(members(view)).toEqual([...w.world.participant].sort());
  expect(views[0]!.contracts?.map((c) => c.template_id)).toEqual(['Governance.Rules:GovernanceRules']);
  const partyId = views[0]!.party_id;
  for (const [i, api] of w.world.dpm.entries()) {
    expect((await stateOn(api, partyId))?.threshold).toBe(3);
    expect(await executionsOf(api, partyId, 'SelfAction_SetThreshold')).toBe(1);
    expect((await confirmationsOn(api, partyId)).actions, `confirmations pending on node${i + 1}`).toEqual(
      [],
    );
    const { body } = await api.get<{ invitations: unknown[] }>('/invitations');
    expect(
      body.invitations,
      `invitations pending on node${i + 1}: ${JSON.stringify(body.invitations)}`,
    ).toEqual([]);
  }
  // the governance writes: every request is in its node's audit log; one execution and at most one confirmation
  // per member succeeded; a refused one was refused because a concurrent write held or had consumed the rules
  // contract (the operators' consuming choices race on it), and was read and sent again after a pause
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
async function ownCredentialsOnly(w: PartyWorld, everyNodeActed = true): Promise<void> {
  const { body } = await w.world.admin.get<{
    callers: Array<{ node: string; api: string; who: string; count: number }>;
  }>('/callers');
  for (const c of body.callers) {
    const n = c.node.slice('node'.length);
    const allowed = c.api === 'party' ? [`service-account-node${n}-admin`] : ['viewer', `operator${n}`];
    expect(allowed, JSON.stringify(c)).toContain(c.who);
  }
  if (!everyNodeActed) return;
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
 * A process's summary counts only what it sent: an operator whose node neither accepted nor declined the
 * Contracts run's invitation (its node's own request log; only that operator writes to it) sent nothing in
 * deploy-contracts' deploy step, and says the step is in sync — not "applied".
 */
function honestSummaries(counts: Awaited<ReturnType<typeof requestCounts>>, deploy: Results[]): void {
  for (const [i, results] of deploy.entries()) {
    const n = i + 1;
    if (n === 1) continue; // the coordinator's operator started the run
    const sent =
      count(counts, `node${n}`, 'POST', '/invitations/accept') +
      count(counts, `node${n}`, 'POST', '/invitations/decline');
    const text = screenText(results['deploy-contracts']?.stdout ?? '');
    // onboard-party and distribute-dars accept one invitation each on every peer
    if (sent === 2) expect(text, `operator${n} deploy-contracts`).toMatch(/deploy: in-sync/);
    else expect(text, `operator${n} deploy-contracts`).toMatch(/deploy: applied 1/);
  }
}

describe.each([
  ['fast', {}, true],
  ['realistic ×0.1', REALISTIC, false],
])('three operators, each with its own target, state dir and credentials (%s)', (_name, profile, again) => {
  it('run the four playbooks at the same time: every process exits 0, one run per intent, nothing left pending', async () => {
    const w = (current = await partyWorld(profile));
    const ops = await Promise.all([1, 2, 3].map((n) => operatorOf(w, n)));
    await w.world.admin.call('DELETE', '/requests');
    // operator 2 watches in a terminal
    const done = await Promise.all(ops.map((o) => runAll(w, o, { terminal: o.n === 2 })));
    await converged(w);
    await ownCredentialsOnly(w);
    honestSummaries(
      await requestCounts(w.world),
      done.map((d) => d.results),
    );
    // what the person at operator 2's terminal saw last
    expect(screenText(done[1]!.results.governance?.stdout ?? '')).toMatch(/Done: |Nothing to do/);
    if (!again) return;

    // again, all three: nothing changes state
    const before = await w.writes();
    await Promise.all(ops.map((o) => runAll(w, o)));
    expect(await w.writes()).toEqual(before);
  }, 240_000);
});

describe('three operators under the realistic profile ×0.1', () => {
  it('one SIGKILLed at a random moment and restarted, and a member node restarted in the contracts workflow: every playbook still converges, once', async () => {
    const w = (current = await partyWorld(REALISTIC));
    const ops = await Promise.all([1, 2, 3].map((n) => operatorOf(w, n)));
    await w.world.admin.call('DELETE', '/requests');
    const victim = 1 + Math.floor(Math.random() * 3);
    const play = PLAYS[Math.floor(Math.random() * PLAYS.length)]!;
    const afterMs = Math.floor(Math.random() * 4000);
    const moment = `operator${victim}, ${afterMs} ms into ${play}`;
    // node2 goes down for 300 ms (3 s unscaled) once the contracts run started: its invitation is out
    const member = (async () => {
      await requestSeen(w.world, 'node1', 'POST', '/contracts', 1, 120_000, 20);
      const response = await w.world.admin.post('/nodes/node2/restart', { downMs: 300 });
      expect(response.status, response.text).toBe(202);
    })();
    const runs = ops.map((o) =>
      o.n === victim
        ? runAll(w, o, { kill: { play, when: () => new Promise((r) => setTimeout(r, afterMs)) } })
        : runAll(w, o),
    );
    try {
      const { killed } = await runs[victim - 1]!;
      // restarted with the same state dir, from the playbook it was killed in (or, killed after the last, again)
      const restarted = runAll(w, ops[victim - 1]!, { from: killed ?? 'governance' });
      await Promise.all([...runs.filter((_, i) => i !== victim - 1), restarted, member]);
      await converged(w, { memberRestartedInContracts: true });
      await ownCredentialsOnly(w);
    } catch (error) {
      throw new Error(`killed ${moment}: ${(error as Error).message}`, { cause: error });
    }
  }, 240_000);
});

describe('the coordinator restarted during the DARs workflow (realistic ×0.5)', () => {
  it('for 3 s while the others wait for its run, and again while its run waits for them: every process exits 0, one run', async () => {
    // ×0.5: the peers' DPMs give up on a coordinator after 3 failed polls 2.5 s apart, so that, as on a real
    // network (5 s apart), they outlast a 3 s restart; ledgerbook's own waits are not scaled
    const w = (current = await realisticWorld(alphaOnboarded, 0.5));
    const ops = await Promise.all([1, 2, 3].map((n) => operatorOf(w, n)));
    await addFaults(w.world, {
      kind: 'restart',
      node: 'node1',
      at: { workflow: 'Dars', step: 'WaitingForPeers' },
      downMs: 3000,
    });
    await w.world.admin.call('DELETE', '/requests');
    // the operators of node2 and node3 first: they wait for node1's operator to start the run, reading node1
    const others = ops.slice(1).map((o) => o.op.spawn(join(PLAYBOOKS, 'distribute-dars.yaml')).done);
    await requestSeen(w.world, 'node1', 'GET', '/workflows', 6);
    const down = await w.world.admin.post('/nodes/node1/restart', { downMs: 3000 });
    expect(down.status, down.text).toBe(202);
    await new Promise((r) => setTimeout(r, 3500));
    const dars = await Promise.all([ops[0]!.op.run(join(PLAYBOOKS, 'distribute-dars.yaml')), ...others]);
    for (const r of dars) expect(r.code, output(r)).toBe(0);
    const runs = (await Promise.all(w.world.dpm.map((api) => runsOf(api, 'Dars')))).flat();
    expect(runs.map((r) => r.status)).toEqual(['completed']);
    // the operators of node2 and node3 read node1 only: it did not answer for a while, and they waited
    for (const r of dars.slice(1)) expect(r.stdout).toMatch(/node1 did not answer .*; still waiting/);
  }, 240_000);
});

/** A world whose party is onboarded with governance-core vetted (set up fast), then realistic ×0.1. */
async function preparedWorld(): Promise<{ w: PartyWorld; ops: Op[] }> {
  const w = (current = await realisticWorld(contractsPrepared, 0.1));
  return { w, ops: await Promise.all([1, 2, 3].map((n) => operatorOf(w, n))) };
}

/** Resolves when the wall clock's second changes: processes started then start in the same second. */
async function secondBoundary(): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  while (Math.floor(Date.now() / 1000) === now) await new Promise((r) => setTimeout(r, 5));
}

describe('two processes racing in the same second (realistic ×0.1)', () => {
  it('deploy-contracts, then change-threshold: both exit 0, the loser follows; a co-operator follows too; one run of each', async () => {
    const { w, ops } = await preparedWorld();
    // two runners of the operator of node1 (CI jobs with their own state dirs) and, for the other nodes, their
    // operators: they accept on their own nodes, running the playbooks unchanged (node1 coordinates)
    const racers = [ops[0]!, { ...ops[0]!, op: w.operator('operator1-again', ops[0]!.target) }];
    const deployOf = (o: Op) =>
      o.op.run(join(PLAYBOOKS, 'deploy-contracts.yaml'), ...argsOf(o.n, 'deploy-contracts'));
    await w.world.admin.call('DELETE', '/requests');
    await secondBoundary();
    const deploy = await Promise.all([...racers, ops[1]!, ops[2]!].map(deployOf));
    for (const r of deploy) expect(r.code, output(r)).toBe(0);

    await secondBoundary();
    const change = join(PLAYBOOKS, 'change-threshold.yaml');
    const threshold = await Promise.all(
      [...racers, ops[1]!, ops[2]!].map((o) => o.op.run(change, '--input', 'threshold=3')),
    );
    for (const r of threshold) expect(r.code, output(r)).toBe(0);

    for (const kind of ['Contracts', 'ChangeThreshold']) {
      const runs = (await Promise.all(w.world.dpm.map((api) => runsOf(api, kind)))).flat();
      expect(
        runs.map((r) => r.status),
        kind,
      ).toEqual(['completed']);
    }
    const views = await partyOnEvery(w.world, 'alpha', [0, 1, 2]);
    for (const view of views) {
      expect(view.threshold).toBe(3);
      expect(view.contracts?.map((c) => c.template_id)).toEqual(['Governance.Rules:GovernanceRules']);
    }
    for (const [i, api] of w.world.dpm.entries()) {
      const { body } = await api.get<{ invitations: unknown[] }>('/invitations');
      expect(
        body.invitations,
        `invitations pending on node${i + 1}: ${JSON.stringify(body.invitations)}`,
      ).toEqual([]);
    }
    await ownCredentialsOnly(w, false);
  }, 240_000);
});
