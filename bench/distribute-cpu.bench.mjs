/**
 * The CLI's CPU in a distribution: `ledgerbook sandbox up` in its own process, then token.distribute of
 * `--recipients` holders (9 lanes, `--latency` ms per submission) run by the CLI under /usr/bin/time; user + system
 * seconds of the CLI alone, `--runs` times, and their median. Linux (/usr/bin/time -f).
 *
 *   node bench/distribute-cpu.bench.mjs [--cli dist/cli/main.js] [--recipients 300] [--latency 0] [--runs 3]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import process, { stdout } from 'node:process';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    cli: { type: 'string', default: new URL('../dist/cli/main.js', import.meta.url).pathname },
    recipients: { type: 'string', default: '300' },
    latency: { type: 'string', default: '0' },
    runs: { type: 'string', default: '3' },
  },
});
const CLI = resolve(args.cli);

async function json(method, url, body) {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return response.json();
}

async function once() {
  const dir = await mkdtemp(join(tmpdir(), 'lb-bench-cpu-'));
  const target = join(dir, 'target.yaml');
  const sandbox = spawn(
    process.execPath,
    [CLI, 'sandbox', 'up', '--state-dir', dir, '--write-target', target],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  try {
    const urls = await new Promise((done, fail) => {
      let buffer = '';
      sandbox.stdout.on('data', (chunk) => {
        buffer += chunk;
        if (buffer.includes('\n')) done(JSON.parse(buffer.split('\n')[0]));
      });
      sandbox.once('exit', (code) => fail(new Error(`sandbox up exited ${code}`)));
    });
    const world = await json('GET', `${urls.admin}/world`);
    await json('PUT', `${urls.admin}/capacity`, { latencyMs: Number(args.latency), limit: null });
    const receivers = world.holders.map((h) => h.party).slice(1, Number(args.recipients) + 1);
    const csv = join(dir, 'recipients.csv');
    await writeFile(csv, `receiver,amount\n${receivers.map((r) => `${r},0.001`).join('\n')}\n`);
    const playbook = join(dir, 'pay.yaml');
    await writeFile(
      playbook,
      `name: bench-cpu\nsteps:\n  - id: pay\n    uses: token.distribute\n    concurrency: 9\n    with:\n      sender: minter\n      recipients: ${csv}\n`,
    );
    const run = spawn(
      '/usr/bin/time',
      [
        '-f',
        'CPU %U %S %e',
        process.execPath,
        CLI,
        'run',
        playbook,
        '--target',
        target,
        '--state-dir',
        join(dir, 'state'),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CI: 'true' } },
    );
    let err = '';
    run.stderr.on('data', (d) => (err += d));
    const code = await new Promise((done) => run.once('exit', done));
    const m = /CPU ([\d.]+) ([\d.]+) ([\d.]+)/.exec(err);
    if (code !== 0 || m === null) throw new Error(`the distribution exited ${code}:\n${err}`);
    return { user: Number(m[1]), system: Number(m[2]), cpu: Number(m[1]) + Number(m[2]), wall: Number(m[3]) };
  } finally {
    sandbox.kill('SIGTERM');
    await new Promise((done) => sandbox.once('exit', done));
    await rm(dir, { recursive: true, force: true });
  }
}

const results = [];
for (let i = 0; i < Number(args.runs); i++) results.push(await once());
const cpu = results.map((r) => r.cpu).sort((a, b) => a - b);
stdout.write(
  `${JSON.stringify({ recipients: Number(args.recipients), latencyMs: Number(args.latency), runs: results, medianCpuSeconds: cpu[Math.floor(cpu.length / 2)] })}\n`,
);
