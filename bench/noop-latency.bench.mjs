// A converged onboard-party run (nothing to do) against a sandbox whose nodes answer every request 200 ms late:
// how many round trips its observation costs. The run's wall time with the latency, minus its wall time without,
// divided by the latency, is the number of round trips on its critical path; the busiest node's GET count is what
// that node alone must serve, one round trip each when its reads go one after another. Target: the no-op run
// within 1.5× the round trips of the slowest (busiest) node. Usage: npm run build && node bench/noop-latency.bench.mjs [runs]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { CLI, median, table } from './cli.mjs';

const runs = Number(process.argv[2] ?? 5);
const LATENCY_MS = 200;
const root = new URL('..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'lb-bench-noop-'));
const target = join(dir, 'target.yaml');
const env = { ...process.env, CI: 'true', NO_COLOR: '1' };

/** `ledgerbook sandbox up` in the background; resolves with its URLs once it printed them. */
function sandboxUp() {
  const child = spawn(
    process.execPath,
    [CLI, 'sandbox', 'up', '--state-dir', join(dir, 'sandbox'), '--write-target', target],
    { cwd: dir, env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child, urls: JSON.parse(line) });
    });
    child.on('exit', (code) => reject(new Error(`sandbox up exited ${code}`)));
  });
}

async function admin(urls, method, path, body) {
  const response = await fetch(`${urls.admin}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status >= 300)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : response.json();
}

function runOnce() {
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    [
      CLI,
      'run',
      join(root, 'playbooks/onboard-party.yaml'),
      '--target',
      target,
      '--state-dir',
      join(dir, 'state'),
    ],
    { cwd: dir, env, encoding: 'utf8' },
  );
  const ms = performance.now() - started;
  if (result.status !== 0)
    throw new Error(`run exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return { ms, stdout: result.stdout };
}

const { child, urls } = await sandboxUp();
try {
  runOnce(); // converge: mesh, party, credentials
  const noop = runOnce();
  if (!/Nothing to do/.test(noop.stdout))
    throw new Error(`the second run changed something:\n${noop.stdout}`);

  const base = median(Array.from({ length: runs }, () => runOnce().ms));

  await admin(urls, 'POST', '/faults', { kind: 'latency', ms: LATENCY_MS });
  await admin(urls, 'DELETE', '/requests');
  const slow = [];
  for (let i = 0; i < runs; i++) slow.push(runOnce().ms);
  const { requests } = await admin(urls, 'GET', '/requests');
  const gets = new Map();
  for (const r of requests)
    if (r.method === 'GET') gets.set(r.node, (gets.get(r.node) ?? 0) + r.count / runs);
  const total = [...gets.values()].reduce((a, b) => a + b, 0);
  const [busiest, busiestGets] = [...gets].sort((a, b) => b[1] - a[1])[0];

  const wall = median(slow);
  const roundTrips = (wall - base) / LATENCY_MS;
  const ratio = roundTrips / busiestGets;
  console.log(
    table([
      ['measure', 'value'],
      ['no-op run, no latency (median ms)', base.toFixed(0)],
      [`no-op run, ${LATENCY_MS} ms on every node (median ms)`, wall.toFixed(0)],
      ['round trips on the critical path', roundTrips.toFixed(1)],
      ['GETs per run, all nodes', total.toFixed(0)],
      [`GETs per run, busiest node (${busiest})`, busiestGets.toFixed(0)],
      ['critical path ÷ busiest node’s round trips', ratio.toFixed(2)],
    ]),
  );
  console.log(`\ntarget: within 1.5× the busiest node's round trips: ${ratio <= 1.5 ? 'met' : 'NOT met'}`);
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
}
