/**
 * No-op reruns through the CLI (issue "hardening": every rerun appended a full set of records and read the whole
 * journal — ten runs made 14.5 MB and the rerun 1.39× slower with 50% more memory). A playbook whose fan-out step
 * has 10,000 items, all in sync, is run once and then rerun ten times on each state backend (the state dir and
 * PostgreSQL); after each run it records the journal's size and the run's wall time and peak memory. With
 * compaction on open, the journal holds the last run plus the memory of earlier ones, so the size and the
 * rerun's cost stay flat.
 *
 *   node bench/rerun.bench.mjs [--items 10000] [--reruns 10] [--backend file|postgres|both] [--cli PATH] [--json]
 *
 * Needs the build (`npm run build`). Peak memory comes from /usr/bin/time when it exists. `--cli` runs another
 * build (e.g. one made from an older commit, to compare with the journal before compaction).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process, { stdout } from 'node:process';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { importTs } from '../scripts/import-ts.mjs';
import { CLI, table } from './cli.mjs';

const { startPgServer, createDatabase } = await importTs(
  new URL('../test/pg-server.ts', import.meta.url).pathname,
);

const { values: args } = parseArgs({
  options: {
    items: { type: 'string', default: '10000' },
    reruns: { type: 'string', default: '10' },
    backend: { type: 'string', default: 'both' },
    cli: { type: 'string', default: CLI },
    json: { type: 'boolean', default: false },
  },
});
const ITEMS = Number(args.items);
const RERUNS = Number(args.reruns);
const TIME = '/usr/bin/time';

function playbook() {
  const items = Array.from({ length: ITEMS }, (_, i) => `r${i}`);
  return `name: rerun-bench
steps:
  - id: each
    uses: core.log
    for_each: ${JSON.stringify(items)}
    concurrency: 16
    with: { message: "\${{ item }} in sync" }
`;
}

/** One CLI run: wall time and, with /usr/bin/time, peak resident memory. */
function runOnce(dir, stateArgs) {
  const argv = [args.cli, 'run', 'p.yaml', ...stateArgs];
  const timed = existsSync(TIME);
  const started = performance.now();
  const result = timed
    ? spawnSync(TIME, ['-f', '%M', process.execPath, ...argv], {
        cwd: dir,
        env: { ...process.env, CI: 'true' },
      })
    : spawnSync(process.execPath, argv, { cwd: dir, env: { ...process.env, CI: 'true' } });
  const wallMs = performance.now() - started;
  if (result.status !== 0) throw new Error(`ledgerbook run exited ${result.status}: ${result.stderr}`);
  const rssKiB = timed ? Number(String(result.stderr).trim().split('\n').at(-1)) : undefined;
  return { wallMs, rssMiB: rssKiB === undefined ? undefined : rssKiB / 1024 };
}

async function measure(name, dir, stateArgs, journalSize) {
  const runs = [];
  for (let n = 0; n <= RERUNS; n++) {
    const run = runOnce(dir, stateArgs);
    runs.push({ run: n, ...run, ...(await journalSize()) });
  }
  return { backend: name, runs };
}

const root = await mkdtemp(join(tmpdir(), 'lb-bench-rerun-'));
const results = [];
try {
  await writeFile(join(root, 'p.yaml'), playbook());
  const backends = args.backend === 'both' ? ['file', 'postgres'] : [args.backend];
  for (const name of backends) {
    if (name === 'file') {
      const journal = join(root, 'state', 'rerun-bench@sandbox', 'journal.ndjson');
      results.push(
        await measure('file', root, ['--state-dir', join(root, 'state')], async () => {
          const text = await readFile(journal, 'utf8');
          return { bytes: (await stat(journal)).size, records: text.split('\n').length - 1 };
        }),
      );
    } else if (name === 'postgres') {
      const server = await startPgServer();
      try {
        const url = await createDatabase(server, 'rerun');
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          results.push(
            await measure('postgres', root, ['--state', url], async () => {
              const { rows } = await client.query(
                'SELECT count(*)::int AS records, sum(octet_length(record) + 1)::bigint AS bytes FROM ledgerbook.journal',
              );
              return { bytes: Number(rows[0].bytes), records: rows[0].records };
            }),
          );
        } finally {
          await client.end();
        }
      } finally {
        await server.stop();
      }
    } else throw new Error(`--backend ${name}: file, postgres or both`);
  }
} finally {
  await rm(root, { recursive: true, force: true });
}

if (args.json) {
  stdout.write(`${JSON.stringify({ items: ITEMS, reruns: RERUNS, node: process.version, results })}\n`);
} else {
  const mib = (b) => `${(b / 1024 / 1024).toFixed(2)} MiB`;
  stdout.write(`rerun benchmark: ${ITEMS} items in sync, ${RERUNS} reruns, node ${process.version}\n\n`);
  const rows = [['backend', 'after', 'journal', 'records', 'rerun wall ms', 'rerun peak RSS']];
  for (const r of results) {
    for (const n of [1, RERUNS]) {
      const run = r.runs[n];
      rows.push([
        r.backend,
        `${n} rerun${n === 1 ? '' : 's'}`,
        mib(run.bytes),
        String(run.records),
        run.wallMs.toFixed(0),
        run.rssMiB === undefined ? '-' : `${run.rssMiB.toFixed(0)} MiB`,
      ]);
    }
  }
  stdout.write(`${table(rows)}\n`);
  stdout.write(
    `\nevery run: ${results.map((r) => `${r.backend} ${r.runs.map((x) => mib(x.bytes)).join(', ')}`).join('; ')}\n`,
  );
}
