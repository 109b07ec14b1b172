/**
 * A no-op rerun of playbooks/mint-and-distribute.yaml: how many requests it sends, against the minimum a correct
 * no-op rerun must send. The quickstart's playbooks run once on a sandbox of their own (so everything is done),
 * the sandbox's request counters are reset, mint-and-distribute runs again, and the counters are read from the
 * admin API's `/requests`.
 *
 *   node bench/rerun-requests.bench.mjs [--runs 3] [--cli PATH] [--json]
 *
 * Needs the build (`npm run build`). The minimum (bench/README.md "A no-op rerun: requests against the minimum"):
 * one ledger-end read, and one active-contracts read per question that decides whether anything is left to do —
 * the party's Minter credential, its deposit account, its pending transfer offers, its settled transfers — as the
 * party: 1 + 4 = 5 ledger reads. The chain, the gateway, the rewards API and the party lookups are counted apart.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process, { stdout } from 'node:process';
import { parseArgs } from 'node:util';
import { CLI, median, table } from './cli.mjs';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    cli: { type: 'string', default: CLI },
    json: { type: 'boolean', default: false },
  },
});
const RUNS = Number(args.runs);
const MINIMUM = { activeContracts: 4, ledgerEnd: 1 };
const PLAYBOOKS = ['onboard-party', 'distribute-dars', 'deploy-contracts', 'mint-and-distribute'];
const root = new URL('..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'lb-bench-rerun-requests-'));
const target = join(dir, 'target.yaml');
const env = { ...process.env, CI: 'true', NO_COLOR: '1' };

/** `ledgerbook sandbox up` in the background; resolves with its URLs once it printed them. */
function sandboxUp() {
  const child = spawn(
    process.execPath,
    [args.cli, 'sandbox', 'up', '--state-dir', join(dir, 'sandbox'), '--write-target', target],
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

async function admin(urls, method, path) {
  const response = await fetch(`${urls.admin}${path}`, { method });
  if (response.status >= 300)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : response.json();
}

function run(name) {
  const result = spawnSync(
    process.execPath,
    [
      args.cli,
      'run',
      join(root, 'playbooks', `${name}.yaml`),
      '--target',
      target,
      '--state-dir',
      join(dir, 'state'),
      ...(name === 'mint-and-distribute' ? ['--input', `reports=${join(dir, 'reports')}`] : []),
    ],
    { cwd: dir, env, encoding: 'utf8' },
  );
  if (result.status !== 0)
    throw new Error(`${name} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

const { child, urls } = await sandboxUp();
const reruns = [];
try {
  for (const name of PLAYBOOKS) run(name);
  for (let i = 0; i < RUNS; i++) {
    await admin(urls, 'DELETE', '/requests');
    const out = run('mint-and-distribute');
    if (!/Nothing to do/.test(out)) throw new Error(`the rerun changed something:\n${out}`);
    reruns.push((await admin(urls, 'GET', '/requests')).requests);
  }
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
}

/** per `node METHOD route`: the median count over the reruns */
const keys = [...new Set(reruns.flat().map((r) => `${r.node} ${r.method} ${r.route}`))].sort();
const counts = keys.map((key) => [
  key,
  median(reruns.map((rs) => rs.find((r) => `${r.node} ${r.method} ${r.route}` === key)?.count ?? 0)),
]);
const sum = (match) => counts.filter(([key]) => match(key)).reduce((n, [, c]) => n + c, 0);
const activeContracts = sum((k) => k.endsWith(' /v2/state/active-contracts'));
const ledgerEnd = sum((k) => k.endsWith(' /v2/state/ledger-end'));
const ledgerReads = activeContracts + ledgerEnd;
const minimum = MINIMUM.activeContracts + MINIMUM.ledgerEnd;

if (args.json) {
  stdout.write(
    `${JSON.stringify({ runs: RUNS, counts: Object.fromEntries(counts), activeContracts, ledgerEnd, minimum })}\n`,
  );
} else {
  stdout.write(`no-op rerun of mint-and-distribute, median of ${RUNS}, node ${process.version}\n\n`);
  stdout.write(`${table([['request', 'count'], ...counts.map(([k, c]) => [k, String(c)])])}\n\n`);
  stdout.write(
    `${table([
      ['measure', 'value'],
      ['active-contracts reads', `${activeContracts} (minimum ${MINIMUM.activeContracts})`],
      ['ledger-end reads', `${ledgerEnd} (minimum ${MINIMUM.ledgerEnd})`],
      [
        'ledger reads against the minimum',
        `${ledgerReads} ÷ ${minimum} = ${(ledgerReads / minimum).toFixed(2)}×`,
      ],
      ['all requests', String(sum(() => true))],
    ])}\n`,
  );
  stdout.write(`\ntarget: ≤ 1.25× the minimum: ${ledgerReads / minimum <= 1.25 ? 'met' : 'NOT met'}\n`);
}
