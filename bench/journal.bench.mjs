/**
 * Journal overhead per checkpointed item, the engine's pattern: for each item, appendDurable(intent) (write +
 * fdatasync before the side effect), then append(done) (carried by the next durable write). Measured with one
 * item at a time and with 16 in flight, then reading and summarising the 10,000-item journal. The side effect
 * itself is left out: what remains is the journal's own cost. Target (issue 2): under 1 ms per item at 10,000.
 *
 *   node bench/journal.bench.mjs [--items 10000] [--dir DIR] [--json]
 *
 * DIR (default: the current directory, where `.ledgerbook/` lives) decides the file system measured; a
 * temporary directory is made inside it and removed afterwards.
 */
import { Buffer } from 'node:buffer';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import process, { stdout } from 'node:process';
import { parseArgs } from 'node:util';
import { importTs } from '../scripts/import-ts.mjs';

const { Journal, readJournal } = await importTs(
  new URL('../src/engine/journal.ts', import.meta.url).pathname,
);
const { lastRun, summarizeRun } = await importTs(
  new URL('../src/engine/journal-state.ts', import.meta.url).pathname,
);
const { Masker } = await importTs(new URL('../src/engine/masker.ts', import.meta.url).pathname);

const { values: args } = parseArgs({
  options: {
    items: { type: 'string', default: '10000' },
    dir: { type: 'string', default: '.' },
    json: { type: 'boolean', default: false },
  },
});
const ITEMS = Number(args.items);
const TARGET_MS = 1;
const RUN = '20250301T101500-3f2a';
const AT = '2025-03-01T10:15:00.000Z';
const PARTY = `wbtc-dp::1220${'ab'.repeat(32)}`;

function masker() {
  // A run always has a few secrets registered: every record goes through them.
  const m = new Masker();
  for (const secret of ['idp-password-1234', 'client-secret-abcdef', 'eyJhbGciOiJSUzI1NiJ9.access.token'])
    m.add(secret);
  return m;
}

function runRecord() {
  return {
    t: 'run',
    v: 1,
    run: RUN,
    at: AT,
    playbook: 'distribute-wbtc',
    file: 'playbooks/distribute-wbtc.yaml',
    target: 'sandbox',
    digest: 'a'.repeat(64),
    inputsDigest: 'b'.repeat(64),
    pid: process.pid,
    host: 'bench',
    user: 'bench',
    mode: 'run',
  };
}

const intent = (i) => ({
  t: 'intent',
  run: RUN,
  step: 'pay',
  item: `recipient-${i}`,
  at: new Date().toISOString(),
  intent: {
    action: 'transfer',
    commandId: `lb-distribute-wbtc-pay-${i.toString(16).padStart(8, '0')}`,
    receiver: PARTY,
    amount: '0.0100000000',
  },
});

const done = (i) => ({
  t: 'done',
  run: RUN,
  step: 'pay',
  item: `recipient-${i}`,
  at: new Date().toISOString(),
  status: 'applied',
  outputs: { updateId: `1220${i.toString(16).padStart(60, '0')}` },
});

async function startJournal(dir) {
  const journal = await Journal.open(dir, masker());
  await journal.appendDurable(runRecord());
  journal.append({ t: 'step', run: RUN, step: 'pay', at: AT, withDigest: 'c'.repeat(64), items: ITEMS });
  return journal;
}

/** Items taken from a shared counter by `concurrency` workers, as the engine's fan-out does. */
async function writeItems(dir, concurrency) {
  const journal = await startJournal(dir);
  const before = { ...journal.stats };
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < ITEMS) {
        const i = next++;
        await journal.appendDurable(intent(i));
        journal.append(done(i));
      }
    }),
  );
  await journal.flush();
  const totalMs = performance.now() - started;
  await journal.close();
  const { size } = await stat(journal.file);
  return {
    totalMs,
    perItemMs: totalMs / ITEMS,
    batches: journal.stats.batches - before.batches,
    bytes: size,
  };
}

async function readAndSummarise(dir) {
  const started = performance.now();
  const records = await readJournal(dir);
  const run = lastRun(records);
  const summary = run && summarizeRun(run);
  const totalMs = performance.now() - started;
  const pay = summary?.steps.find((s) => s.step === 'pay');
  if (pay?.done !== ITEMS) throw new Error(`summary found ${pay?.done} done items, expected ${ITEMS}`);
  return { totalMs, perItemMs: totalMs / ITEMS, records: records.length };
}

/** One small write + fdatasync, the floor of a durable append on this file system (median of 200). */
async function fdatasyncFloor(dir) {
  const handle = await open(join(dir, 'floor'), 'a');
  const line = Buffer.from(`${JSON.stringify(intent(0))}\n`);
  const samples = [];
  try {
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      await handle.write(line);
      await handle.datasync();
      samples.push(performance.now() - t);
    }
  } finally {
    await handle.close();
  }
  samples.sort((a, b) => a - b);
  return samples[100];
}

const root = await mkdtemp(join(resolve(args.dir), '.bench-journal-'));
try {
  const floorMs = await fdatasyncFloor(root);
  const sequential = await writeItems(join(root, 'seq'), 1);
  const parallel = await writeItems(join(root, 'par'), 16);
  const read = await readAndSummarise(join(root, 'seq'));
  const result = {
    items: ITEMS,
    node: process.version,
    dir: root,
    fdatasyncMedianMs: floorMs,
    sequential,
    concurrent16: parallel,
    readAndSummarise: read,
    targetPerItemMs: TARGET_MS,
    targetMet: sequential.perItemMs < TARGET_MS && parallel.perItemMs < TARGET_MS,
  };
  if (args.json) {
    stdout.write(`${JSON.stringify(result)}\n`);
  } else {
    const f = (n, digits = 3) => n.toFixed(digits);
    const mib = (b) => `${(b / 1024 / 1024).toFixed(2)} MiB`;
    const rows = [
      ['scenario', 'total ms', 'per item ms', 'write+fdatasync batches', 'file size'],
      [
        'write, 1 item at a time',
        f(sequential.totalMs, 0),
        f(sequential.perItemMs),
        String(sequential.batches),
        mib(sequential.bytes),
      ],
      [
        'write, 16 items in flight',
        f(parallel.totalMs, 0),
        f(parallel.perItemMs),
        String(parallel.batches),
        mib(parallel.bytes),
      ],
      ['read + summarise', f(read.totalMs, 0), f(read.perItemMs), '-', `${read.records} records`],
    ];
    const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
    const line = (r) => `| ${r.map((cell, c) => cell.padEnd(widths[c])).join(' | ')} |`;
    stdout.write(`journal benchmark: ${ITEMS} items, node ${process.version}, in ${root}\n`);
    stdout.write(`one small write + fdatasync on this file system: median ${f(floorMs)} ms\n\n`);
    stdout.write(`${line(rows[0])}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n`);
    for (const r of rows.slice(1)) stdout.write(`${line(r)}\n`);
    stdout.write(
      `\ntarget: under ${TARGET_MS} ms per checkpointed item: ${result.targetMet ? 'met' : 'NOT met'}\n`,
    );
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
