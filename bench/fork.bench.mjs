/**
 * `ledgerbook sandbox up --fork`: wall time and peak memory (the fork process's peak RSS, VmHWM, read when it prints
 * its URLs) against the number of contracts copied. For each size N the original network is a sandbox whose minter
 * holds N extra holdings (created in-process in transactions of 1,000 before the original starts as `ledgerbook
 * sandbox up`); the fork reads it through its target file and starts the copy. The contracts copied are what the
 * fork reports (`copied: … N contracts`).
 *
 *   node bench/fork.bench.mjs [--sizes 100,1000,10000] [--json]      (after npm run build)
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process, { stdout } from 'node:process';
import { parseArgs } from 'node:util';
import { importTs } from '../scripts/import-ts.mjs';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100,1000,10000' },
    json: { type: 'boolean', default: false },
  },
});
const SIZES = args.sizes.split(',').map(Number);
const PER_TX = 1000;
const CLI = new URL('../dist/cli/main.js', import.meta.url).pathname;
const m = await importTs(new URL('./support/fork-original.ts', import.meta.url).pathname);

/** the original's state dir with the sandbox world and `count` extra holdings of the minter */
async function original(root, count) {
  const stateDir = join(root, 'sandbox');
  const first = await m.startSandbox({ stateDir, port: 0 });
  await first.stop();
  const canton = new m.Synchronizer(stateDir);
  const ledger = new m.Ledger({
    stateDir,
    catalog: m.sandboxCatalog(),
    synchronizerId: 'bench',
    topology: {
      decentralizedHosting: () => undefined,
      decentralizedParties: () => canton.allParties().map((p) => p.partyId),
    },
  });
  // the chain's notes are replayed by the sandbox itself; this ledger only appends transactions
  ledger.registerExtension('bitcoin', {
    restore: () => undefined,
    snapshot: () => undefined,
    apply: () => undefined,
  });
  ledger.open();
  const nodes = [0, 1, 2].map((i) => ({
    ...m.nodeIdentity(i),
    operatorUser: '',
    ciUser: '',
    viewerUser: '',
  }));
  const world = m.describeWorld(nodes);
  const registrar = { operator: world.operator, provider: world.admin, registrar: world.admin };
  for (let t = 0; t * PER_TX < count; t++) {
    const commands = [];
    for (let i = 0; i < PER_TX && t * PER_TX + i < count; i++)
      commands.push({
        kind: 'create',
        template: m.Holding,
        arg: m.holdingArg(registrar, world.minter, world.instrument, '0.0010000000'),
      });
    await ledger.submit({
      participant: nodes[0].participantId,
      userId: 'bench',
      actAs: [world.admin, world.minter],
      commandId: `bench-${t}`,
      commands,
      internal: true,
    });
  }
  ledger.close();
}

/** `ledgerbook sandbox up …` until it prints its URLs: wall ms, peak RSS (VmHWM) and stderr; then SIGTERM */
function up(args, cwd) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, 'sandbox', 'up', ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const early = (code) => reject(new Error(`sandbox up ended (${code}) before its URLs:\n${err}`));
    child.once('close', early);
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', async (d) => {
      out += d;
      if (!out.includes('\n')) return;
      const ms = performance.now() - started;
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '');
      const peakKiB = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN);
      child.off('close', early);
      child.kill('SIGTERM');
      child.once('close', () => resolve({ ms, peakMiB: peakKiB / 1024, stderr: err }));
    });
  });
}

const rows = [];
for (const size of SIZES) {
  const root = await mkdtemp(join(tmpdir(), 'lb-bench-fork-'));
  try {
    await original(join(root, 'original'), size);
    const target = join(root, 'network.yaml');
    const network = await new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [CLI, 'sandbox', 'up', '--state-dir', join(root, 'original'), '--write-target', target],
        {
          cwd: root,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      child.stdout.once('data', () => resolve(child));
      child.once('close', (code) => reject(new Error(`the original ended (${code})`)));
    });
    try {
      const fork = await up(['--fork', target, '--state-dir', join(root, 'copy')], root);
      const copied = Number(/copied: .*?, (\d+) contracts,/.exec(fork.stderr)?.[1] ?? NaN);
      rows.push({
        holdings: size,
        contractsCopied: copied,
        ms: Math.round(fork.ms),
        peakRssMiB: Math.round(fork.peakMiB),
      });
    } finally {
      network.removeAllListeners('close');
      network.kill('SIGTERM');
      await new Promise((r) => network.once('close', r));
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (args.json) stdout.write(`${JSON.stringify(rows)}\n`);
else
  for (const r of rows)
    stdout.write(
      `${r.holdings} extra holdings: ${r.contractsCopied} contracts copied, fork ${r.ms} ms, peak RSS ${r.peakRssMiB} MiB\n`,
    );
