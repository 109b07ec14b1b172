/**
 * The terminal against a pipe (issue 21): the same run with its output on a pseudo-terminal (util-linux `script`,
 * 120 x 40: the live view) and on a pipe (plain lines), taken in turn run by run, each with a fresh state dir.
 * Whole-process wall and CPU time of the CLI come from /usr/bin/time; the ratio terminal / piped is taken pair by
 * pair. Then the renderer's own CPU: a recorded --json event stream of each case replayed at its pace through the
 * terminal reporter, the plain one and none, on a pseudo-terminal of 120 and of 40 columns
 * (bench/support/replay-reporter.mjs).
 *
 *   node bench/terminal.bench.mjs [--runs 5] [--only main|items|replay]
 *
 * Cases: the README's main job (`run playbooks/mint-and-distribute.yaml` on the built-in sandbox, which runs in
 * the CLI's process) and a 10,000-item step (core.log over 10,000 items). Needs the build (`npm run build`).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { CLI, median, table } from './cli.mjs';

const { values: args } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, only: { type: 'string' } },
});
const RUNS = Number(args.runs);
const ROOT = new URL('../', import.meta.url).pathname;
const REPLAY = new URL('./support/replay-reporter.mjs', import.meta.url).pathname;
const quote = (part) => `'${part.replaceAll("'", "'\\''")}'`;

/** a person's environment: no CI, colours allowed (piped output is plain because it is not a terminal) */
function env() {
  const e = { ...process.env, TERM: 'xterm-256color' };
  for (const name of ['CI', 'NO_COLOR', 'FORCE_COLOR', 'GITHUB_ACTIONS']) delete e[name];
  return e;
}

/** Runs `argv` to its end, its output drained and counted; resolves with the bytes it wrote. */
function drain(argv, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, env: env(), stdio: ['pipe', 'pipe', 'pipe'] });
    let bytes = 0;
    child.stdout.on('data', (d) => (bytes += d.length));
    child.stderr.on('data', (d) => (bytes += d.length));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(bytes) : reject(new Error(`${argv.join(' ')}: exit ${code}`)),
    );
  });
}

/** One run of the CLI with `args` (a fresh state dir each time), on a terminal or a pipe: wall, CPU, bytes. */
async function once(how, args, cwd) {
  const dir = await mkdtemp(join(tmpdir(), 'lb-bench-tty-'));
  try {
    const times = join(dir, 'time');
    const cli = [
      '/usr/bin/time',
      '-o',
      times,
      '-f',
      '%e %U %S',
      process.execPath,
      CLI,
      ...args(dir),
      '--state-dir',
      join(dir, 'state'),
    ];
    const argv =
      how === 'terminal'
        ? ['script', '-qefc', `stty cols 120 rows 40; exec ${cli.map(quote).join(' ')}`, '/dev/null']
        : cli;
    const bytes = await drain(argv, cwd);
    const [wall, user, sys] = (await readFile(times, 'utf8'))
      .trim()
      .split('\n')
      .at(-1)
      .split(' ')
      .map(Number);
    return { wall, cpu: user + sys, bytes };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const fmt = (n, digits = 2) => n.toFixed(digits);

async function paired(name, args, cwd) {
  await once('piped', args, cwd); // warm-up: file caches, the build's chunks
  const terminal = [];
  const piped = [];
  for (let i = 0; i < RUNS; i++) {
    terminal.push(await once('terminal', args, cwd));
    piped.push(await once('piped', args, cwd));
  }
  const ratios = terminal.map((t, i) => t.wall / piped[i].wall);
  const cpuRatios = terminal.map((t, i) => t.cpu / piped[i].cpu);
  const m = (list, key) => median(list.map((r) => r[key]));
  return [
    name,
    `${fmt(m(terminal, 'wall'))} s`,
    `${fmt(m(piped, 'wall'))} s`,
    `${fmt(Math.min(...ratios))}–${fmt(median(ratios))}–${fmt(Math.max(...ratios))}`,
    `${fmt(m(terminal, 'cpu'))} s / ${fmt(m(piped, 'cpu'))} s (${fmt(median(cpuRatios))})`,
    `${Math.round(m(terminal, 'bytes') / 1024)} / ${Math.round(m(piped, 'bytes') / 1024)} KiB`,
  ];
}

/** the 10,000-item playbook, in `dir` */
async function itemsPlaybook(dir) {
  const keys = Array.from({ length: 10_000 }, (_, i) => `      - i${String(i).padStart(5, '0')}`);
  const file = join(dir, 'items.yaml');
  await writeFile(
    file,
    ['name: items', 'steps:', '  - id: many', '    uses: core.log', '    for_each:', ...keys]
      .concat(['    with: { message: "item ${{ item }}" }', ''])
      .join('\n'),
  );
  return file;
}

const work = await mkdtemp(join(tmpdir(), 'lb-bench-tty-work-'));
const mainArgs = (dir) => [
  'run',
  'playbooks/mint-and-distribute.yaml',
  '--input',
  `reports=${join(dir, 'reports')}`,
];
const items = await itemsPlaybook(work);
const itemsArgs = () => ['run', items];
const cases = [
  ['main', 'mint-and-distribute (200 recipients)', mainArgs],
  ['items', '10,000 items (core.log)', itemsArgs],
];

try {
  if (args.only === undefined || args.only === 'main' || args.only === 'items') {
    const rows = [
      ['run', 'terminal wall', 'piped wall', 'terminal/piped wall', 'CPU terminal / piped', 'output'],
    ];
    for (const [key, name, argsOf] of cases)
      if (args.only === undefined || args.only === key) rows.push(await paired(name, argsOf, ROOT));
    console.log(`\nWhole process, ${RUNS} pairs (median; ratio min–median–max, pair by pair):\n`);
    console.log(table(rows));
  }
  if (args.only === undefined || args.only === 'replay') {
    const rows = [['events of', 'terminal', 'reporter', 'CPU', 'over none', 'written']];
    for (const [key, name, argsOf] of cases) {
      // one recorded run of the case: its --json events, with the times they came at
      const dir = await mkdtemp(join(work, key));
      const record = await new Promise((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [CLI, ...argsOf(dir), '--json', '--state-dir', join(dir, 'state')],
          { cwd: ROOT, env: env(), stdio: ['ignore', 'pipe', 'ignore'] },
        );
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.on('close', (code) =>
          code === 0 ? resolve(out) : reject(new Error(`record ${key}: exit ${code}`)),
        );
      });
      const events = join(dir, 'events.ndjson');
      await writeFile(events, record);
      for (const cols of [120, 40]) {
        const cpu = {};
        for (const mode of ['none', 'plain', 'terminal']) {
          const samples = [];
          for (let i = 0; i < 3; i++) {
            const result = join(dir, `${mode}.json`);
            const line = `stty cols ${cols} rows 40; exec ${[process.execPath, REPLAY, mode, events, result].map(quote).join(' ')}`;
            const bytes = await drain(['script', '-qefc', line, '/dev/null'], ROOT);
            samples.push({ ...JSON.parse(await readFile(result, 'utf8')), bytes });
          }
          cpu[mode] = median(samples.map((s) => s.cpuMs));
          rows.push([
            `${name}, ${Math.round(median(samples.map((s) => s.wallMs)) / 100) / 10} s`,
            `${cols} × 40`,
            mode,
            `${Math.round(cpu[mode])} ms`,
            mode === 'none' ? '—' : `${Math.round(cpu[mode] - cpu.none)} ms`,
            `${Math.round(median(samples.map((s) => s.bytes)) / 1024)} KiB`,
          ]);
        }
      }
    }
    console.log('\nThe reporters alone, a recorded run replayed at its pace (median of 3):\n');
    console.log(table(rows));
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
