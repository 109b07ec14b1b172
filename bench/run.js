// npm run bench: build, then every benchmark in turn.
import { execFileSync } from 'node:child_process';
import process from 'node:process';

const run = (args) => execFileSync(process.execPath, args, { stdio: 'inherit' });
run(['scripts/build.mjs']);
for (const bench of [
  'bench/cold-start.bench.mjs',
  'bench/validate-10k.bench.mjs',
  'bench/validate-rich.bench.mjs',
  'bench/validate-50mb.bench.mjs',
  'bench/journal.bench.mjs',
  'bench/rerun.bench.mjs',
  'bench/rerun-requests.bench.mjs',
  'bench/noop-latency.bench.mjs',
  'bench/ledger-throughput.bench.mjs',
  'bench/ledger-memory.bench.mjs',
  'bench/distribute.bench.mjs',
  'bench/terminal.bench.mjs',
]) {
  console.log(`\n## ${bench}\n`);
  run([bench]);
}
