/**
 * Several operators, over and over (issue 16's acceptance counts): each trial starts a 3-node sandbox in this
 * process (the realistic profile, time-scaled), writes each operator's own target and secrets folder, runs the
 * built CLI as separate processes, and counts the outcome on the nodes' own APIs and the sandbox's request and
 * caller logs — never on ledgerbook's bookkeeping. A trial converges when every process exits 0 and the nodes
 * show one run per intent, one rules contract, one execution of the threshold change, no invitation and no
 * confirmation left pending, and no operator's credentials used on another's node.
 *
 *   npm run soak:operators -- [--flows 10] [--kills 5] [--restarts 3] [--races 20] [--time-scale 0.1]
 *                             [--profile realistic|fast] [--only flow|kill|restart|race] [--floor N] [--json]
 *
 * - flow: the README's three-operator flow, onboard-party, distribute-dars, deploy-contracts and governance.yaml
 *   (threshold 3), the three processes at once;
 * - kill: the same, one operator SIGKILLed at a random moment and restarted on its state dir;
 * - restart: the same, a member node (node2) restarted for 3 s unscaled once the contracts run started;
 * - race: after the party and DARs are in place, two runners of node1's operator (their own state dirs) start
 *   deploy-contracts in the same second, then change-threshold.yaml, while operators 2 and 3 run the same
 *   playbooks unchanged; one Contracts run and one ChangeThreshold run, both processes exit 0.
 * - `--floor N`: N unscaled realistic flows (time scale 1), each with its wall time against the floor: the sum of
 *   the workflow runs' durations on the coordinator plus the governance writes the rules contract serialises.
 *
 * Needs the build (`npm run build`; the npm script builds first).
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { importTs } from '../scripts/import-ts.mjs';
import { CLI, table } from './cli.mjs';

const { values: args } = parseArgs({
  options: {
    flows: { type: 'string', default: '10' },
    kills: { type: 'string', default: '5' },
    restarts: { type: 'string', default: '3' },
    races: { type: 'string', default: '20' },
    'time-scale': { type: 'string', default: '0.1' },
    profile: { type: 'string', default: 'realistic' },
    only: { type: 'string' },
    floor: { type: 'string', default: '0' },
    json: { type: 'boolean', default: false },
  },
});
const SCALE = Number(args['time-scale']);
const PLAYBOOKS = new URL('../playbooks/', import.meta.url).pathname;
const PLAYS = ['onboard-party', 'distribute-dars', 'deploy-contracts', 'governance'];
const NODES = ['node1', 'node2', 'node3'];
/** how long one ledgerbook process may take before the trial counts it as hung */
const PROCESS_LIMIT_MS = 300_000;
/** the realistic profile's submission latency (packages/sandbox/src/profile.ts): each governance write holds the rules */
const SUBMIT_MS = 3000;

const { startSandbox } = await importTs(
  new URL('../packages/sandbox/src/index.ts', import.meta.url).pathname,
);

// ---------------------------------------------------------------------------------------------------------
// A world: the sandbox, the operators, reads of the nodes

async function world(timeScale) {
  const dir = await mkdtemp(join(tmpdir(), 'lb-soak-'));
  const stateDir = join(dir, 'sandbox');
  const sandbox = await startSandbox({ stateDir, profile: args.profile, timeScale, port: 0 });
  const secret = async (file) => (await readFile(join(stateDir, 'secrets', file), 'utf8')).trim();
  const tokenUrl = sandbox.urls.idp.tokenUrl;
  const viewer = await grant(tokenUrl, 'viewer', await secret('viewer-password'));
  const ops = [];
  for (const n of [1, 2, 3]) ops.push(await operator(dir, stateDir, sandbox, n, `operator${n}`));
  const get = async (base, path, token) => {
    const response = await fetch(`${base}${path}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    if (!response.ok) throw new Error(`GET ${base}${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  return {
    dir,
    sandbox,
    ops,
    operator: (n, name) => operator(dir, stateDir, sandbox, n, name),
    dpm: (i, path) => get(sandbox.urls.nodes[i].dpm, path, viewer),
    admin: (path) => get(sandbox.urls.admin, path),
    adminPost: (path, body) =>
      fetch(`${sandbox.urls.admin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    async stop() {
      await sandbox.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function grant(tokenUrl, username, password) {
  const response = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'ledgerbook-cli', username, password }),
  });
  const body = await response.json();
  if (typeof body.access_token !== 'string') throw new Error(`no token for ${username}`);
  return body.access_token;
}

/** operator n: its own secrets folder and target (its own node controlled), its own state dir */
async function operator(dir, stateDir, sandbox, n, name) {
  const secrets = join(dir, `${name}-secrets`);
  await mkdir(secrets, { recursive: true, mode: 0o700 });
  for (const file of [
    n === 1 ? 'operator-password' : `operator${n}-password`,
    `node${n}-admin-secret`,
    'viewer-password',
  ])
    await copyFile(join(stateDir, 'secrets', file), join(secrets, file));
  const target = join(dir, `${name}.yaml`);
  await writeFile(target, sandbox.targetYaml({ operator: n, secretsDir: secrets }));
  const state = join(dir, `state-${name}`);
  return {
    n,
    name,
    spawn(play, extra = []) {
      const child = spawn(
        process.execPath,
        [CLI, 'run', join(PLAYBOOKS, `${play}.yaml`), '--target', target, '--state-dir', state, ...extra],
        { cwd: dir, env: { ...process.env, CI: 'true', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      // a process that hangs is a failed trial, not a soak that never ends
      const limit = setTimeout(() => child.kill('SIGTERM'), PROCESS_LIMIT_MS);
      const done = new Promise((resolve) =>
        child.on('close', (code, signal) => {
          clearTimeout(limit);
          resolve({ code, signal, output });
        }),
      );
      return { child, done };
    },
  };
}

/** what each operator passes (its node's own admin client for the party's credentials) */
function inputs(n, play) {
  const own = [
    '--input',
    `keycloak_client_id=node${n}-admin`,
    '--input',
    `ledger_user=service-account-node${n}-admin`,
  ];
  if (play === 'onboard-party' || play === 'deploy-contracts') return own;
  if (play === 'governance' || play === 'change-threshold') return ['--input', 'threshold=3'];
  return [];
}

/** the playbooks in order as one operator; `kill` SIGKILLs it at a moment; resolves with the first failure */
async function playAll(op, plays, kill) {
  let k = kill;
  for (const [i, play] of plays.entries()) {
    const { child, done } = op.spawn(play, inputs(op.n, play));
    if (k?.play === play) {
      const timer = setTimeout(() => child.kill('SIGKILL'), k.afterMs);
      const result = await done;
      clearTimeout(timer);
      if (result.signal === 'SIGKILL') return { killed: play };
      if (result.code !== 0)
        return { failed: `${op.name} ${play} exit ${result.code}`, output: result.output };
      // the moment came after the playbook ended: the next one is killed as it starts (none after the last)
      k = plays[i + 1] === undefined ? undefined : { play: plays[i + 1], afterMs: 0 };
      continue;
    }
    const result = await done;
    if (result.code !== 0) return { failed: `${op.name} ${play} exit ${result.code}`, output: result.output };
  }
  return {};
}

// ---------------------------------------------------------------------------------------------------------
// Counted on the nodes

function total(requests, method, route) {
  return requests.filter((r) => r.method === method && r.route === route).reduce((s, r) => s + r.count, 0);
}

async function coordinatorRuns(w, kind) {
  const lists = await Promise.all(NODES.map((_, i) => w.dpm(i, '/workflows')));
  return lists.flatMap((l) => l.runs.filter((r) => r.role === 'Coordinator' && r.kind === kind));
}

/** problems with the converged state, and the duplicates among them (a run, a contract or an execution twice) */
async function verdict(w, { governance = true, kinds = ['Onboarding', 'Dars', 'Contracts'] } = {}) {
  const problems = [];
  let duplicates = 0;
  const { requests } = await w.admin('/requests');
  for (const kind of kinds) {
    const runs = await coordinatorRuns(w, kind);
    if (runs.length > 1) duplicates++;
    if (runs.length !== 1 || runs[0].status !== 'completed')
      problems.push(`${kind} runs: ${runs.map((r) => r.status).join(', ') || 'none'}`);
  }
  if (kinds.includes('Onboarding') && total(requests, 'POST', '/onboarding') !== 1)
    problems.push(`POST /onboarding ×${total(requests, 'POST', '/onboarding')}`);
  const party = (await w.dpm(0, '/decentralized-parties?prefix=alpha&refresh=true')).parties[0];
  const rules = (party?.contracts ?? []).filter((c) => c.template_id === 'Governance.Rules:GovernanceRules');
  if (rules.length > 1) duplicates++;
  if (rules.length !== 1) problems.push(`rules contracts: ${rules.length}`);
  for (const [i, node] of NODES.entries()) {
    const { invitations } = await w.dpm(i, '/invitations');
    if (invitations.length > 0) problems.push(`${node}: ${invitations.length} invitation(s) pending`);
    if (!governance || !party) continue;
    const id = encodeURIComponent(party.party_id);
    const { state } = await w.dpm(i, `/governance/state?party_id=${id}`);
    if (state?.threshold !== 3) problems.push(`${node}: rules threshold ${state?.threshold}`);
    const { actions } = await w.dpm(i, `/governance/confirmations?party_id=${id}`);
    if (actions.length > 0) problems.push(`${node}: ${actions.length} action(s) with confirmations pending`);
    const { entries } = await w.dpm(i, `/governance/chain-audit?party_id=${id}&refresh=true&limit=1000`);
    const executions = entries.filter(
      (e) =>
        e.choice === 'GovernanceRules_ExecuteGovernanceAction' &&
        e.details?.action?._variant === 'SelfAction_SetThreshold',
    ).length;
    if (executions > 1) duplicates++;
    if (executions !== 1) problems.push(`${node}: ${executions} executions of the threshold change`);
  }
  const { callers } = await w.admin('/callers');
  for (const c of callers) {
    const n = c.node.slice('node'.length);
    const allowed = c.api === 'party' ? [`service-account-node${n}-admin`] : ['viewer', `operator${n}`];
    if (!allowed.includes(c.who)) problems.push(`foreign credentials on ${c.node}: ${c.api} ${c.who}`);
  }
  return { problems, duplicates };
}

// ---------------------------------------------------------------------------------------------------------
// Trials

async function flowTrial(w, { kill, restart } = {}) {
  if (restart) {
    void (async () => {
      for (;;) {
        const { requests } = await w.admin('/requests');
        if (total(requests, 'POST', '/contracts') > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await w.adminPost('/nodes/node2/restart', { downMs: Math.round(3000 * SCALE) });
    })();
  }
  return Promise.all(
    w.ops.map(async (op) => {
      if (kill?.victim !== op.n) return playAll(op, PLAYS);
      const first = await playAll(op, PLAYS, kill);
      process.stderr.write(
        `  ${op.name}: ${first.killed ? `SIGKILLed in ${first.killed}` : 'ended before its kill'} (${kill.afterMs} ms into ${kill.play})\n`,
      );
      // restarted at once on its state dir, from the playbook it was killed in
      return first.killed ? playAll(op, PLAYS.slice(PLAYS.indexOf(first.killed))) : first;
    }),
  );
}

async function raceTrial(w) {
  const prepared = await Promise.all(w.ops.map((op) => playAll(op, ['onboard-party', 'distribute-dars'])));
  const failed = prepared.find((o) => o.failed);
  if (failed) return [failed];
  const racer = await w.operator(1, 'operator1-again');
  const all = [w.ops[0], racer, w.ops[1], w.ops[2]];
  const outcomes = [];
  for (const play of ['deploy-contracts', 'change-threshold']) {
    const second = Math.floor(Date.now() / 1000);
    while (Math.floor(Date.now() / 1000) === second) await new Promise((r) => setTimeout(r, 5));
    outcomes.push(...(await Promise.all(all.map((op) => playAll(op, [play])))));
  }
  return outcomes;
}

const SCENARIOS = {
  flow: { trials: Number(args.flows), run: (w) => flowTrial(w) },
  kill: {
    trials: Number(args.kills),
    run: (w) =>
      flowTrial(w, {
        kill: {
          victim: 1 + Math.floor(Math.random() * 3),
          play: PLAYS[Math.floor(Math.random() * PLAYS.length)],
          afterMs: Math.floor(Math.random() * 4000),
        },
      }),
  },
  restart: { trials: Number(args.restarts), run: (w) => flowTrial(w, { restart: true }) },
  race: {
    trials: Number(args.races),
    run: (w) => raceTrial(w),
    check: async (w) => {
      const v = await verdict(w, {
        governance: false,
        kinds: ['Onboarding', 'Dars', 'Contracts', 'ChangeThreshold'],
      });
      const party = (await w.dpm(0, '/decentralized-parties?prefix=alpha&refresh=true')).parties[0];
      if (party?.threshold !== 3) v.problems.push(`party threshold ${party?.threshold}`);
      return v;
    },
  },
};

const rows = [['scenario', 'trials', 'converged', 'duplicates', 'wall per trial (median)', 'first problem']];
const report = [];
for (const [name, scenario] of Object.entries(SCENARIOS)) {
  if (args.only !== undefined && args.only !== name) continue;
  if (scenario.trials === 0) continue;
  let converged = 0;
  let duplicates = 0;
  const walls = [];
  let first;
  for (let t = 1; t <= scenario.trials; t++) {
    const w = await world(SCALE);
    const started = performance.now();
    try {
      const outcomes = await scenario.run(w);
      walls.push(performance.now() - started);
      const failed = outcomes.find((o) => o.failed);
      const v = await (scenario.check ?? ((x) => verdict(x)))(w);
      duplicates += v.duplicates;
      const problems = [...(failed ? [failed.failed] : []), ...v.problems];
      if (problems.length === 0) converged++;
      else {
        first ??= problems[0];
        process.stderr.write(`${name} #${t}: ${problems.join('; ')}\n${failed?.output ?? ''}\n`);
      }
      process.stderr.write(`${name} #${t}: ${problems.length === 0 ? 'converged' : 'NOT converged'}\n`);
    } finally {
      await w.stop();
    }
  }
  walls.sort((a, b) => a - b);
  const median = walls[Math.floor(walls.length / 2)] ?? 0;
  rows.push([name, scenario.trials, converged, duplicates, `${(median / 1000).toFixed(1)} s`, first ?? '—']);
  report.push({
    scenario: name,
    trials: scenario.trials,
    converged,
    duplicates,
    medianMs: Math.round(median),
  });
}

// the unscaled flow against its floor
const floors = [['unscaled flow', 'converged', 'wall', 'floor', 'wall ÷ floor']];
for (let t = 1; t <= Number(args.floor); t++) {
  const w = await world(1);
  try {
    const started = performance.now();
    const outcomes = await flowTrial(w);
    const wallMs = performance.now() - started;
    const v = await verdict(w);
    let floorMs = 0;
    const parts = [];
    for (const kind of ['Onboarding', 'Dars', 'Contracts']) {
      const [run] = await coordinatorRuns(w, kind);
      const ms = (run.updated_at - run.created_at) * 1000;
      floorMs += ms;
      parts.push(`${kind} ${ms / 1000} s`);
    }
    // the confirmations the old threshold (2) needs and the execution, one at a time on the rules contract
    floorMs += 3 * SUBMIT_MS;
    parts.push(`governance 3 × ${SUBMIT_MS / 1000} s`);
    const ok = !outcomes.some((o) => o.failed) && v.problems.length === 0;
    floors.push([
      `#${t}`,
      ok ? 'yes' : `no: ${v.problems[0] ?? outcomes.find((o) => o.failed)?.failed}`,
      `${(wallMs / 1000).toFixed(1)} s`,
      `${(floorMs / 1000).toFixed(0)} s (${parts.join(', ')})`,
      `×${(wallMs / floorMs).toFixed(2)}`,
    ]);
    report.push({
      scenario: 'unscaled flow',
      wallMs: Math.round(wallMs),
      floorMs,
      ratio: wallMs / floorMs,
      ok,
    });
  } finally {
    await w.stop();
  }
}

if (args.json) console.log(JSON.stringify({ timeScale: SCALE, report }));
else {
  if (rows.length > 1) console.log(`${args.profile}, time scale ${SCALE}\n\n${table(rows)}\n`);
  if (floors.length > 1) console.log(`time scale 1 (unscaled)\n\n${table(floors)}`);
}
