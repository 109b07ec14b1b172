// Validation of large generated playbooks (the 10,000-step shape, repeated), valid and with one error near the
// end, through the CLI: wall time and the process's peak RSS at several sizes, to see both grow linearly.
// Targets at 50 MB: the run with an error at most 1.5× the valid run (paired ratio), peak RSS under 1 GB.
// Usage: npm run build && node bench/validate-50mb.bench.mjs [runs] [megabytes…]   (default: 3 10 25 50)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { table } from './cli.mjs';
import { pairedRuns, plainPlaybook } from './validate-playbooks.mjs';

const runs = Number(process.argv[2] ?? 3);
const sizes = process.argv.length > 3 ? process.argv.slice(3).map(Number) : [10, 25, 50];
/** bytes per step of the plain shape, on average */
const STEP_BYTES = plainPlaybook(10_000).length / 10_000;

const rows = [
  [
    'size',
    'steps',
    'valid: wall',
    'valid: peak RSS',
    'one error: wall',
    'one error: peak RSS',
    'error / valid',
  ],
];
let last;
const dir = mkdtempSync(join(tmpdir(), 'lb-bench-'));
try {
  for (const mb of sizes) {
    const steps = Math.round((mb * 1e6) / STEP_BYTES);
    const valid = join(dir, `big-${mb}.yaml`);
    const invalid = join(dir, `big-${mb}-error.yaml`);
    const text = plainPlaybook(steps);
    writeFileSync(valid, text);
    writeFileSync(invalid, plainPlaybook(steps, { error: true }));
    const cli = pairedRuns(['validate', valid], ['validate', invalid], runs);
    rows.push([
      `${(text.length / 1e6).toFixed(1)} MB`,
      String(steps),
      `${(cli.valid.ms / 1000).toFixed(2)} s`,
      `${cli.valid.rssMb.toFixed(0)} MB`,
      `${(cli.error.ms / 1000).toFixed(2)} s`,
      `${cli.error.rssMb.toFixed(0)} MB`,
      `${cli.ratio.toFixed(2)}×`,
    ]);
    last = cli;
    rmSync(valid);
    rmSync(invalid);
  }
  console.log(`median of ${runs} runs each\n`);
  console.log(table(rows));
  console.log(`\nfindings at the largest size: ${last.findings.join(' / ')}`);
  console.log(`target: an error costs at most 1.5× a valid run: ${last.ratio <= 1.5 ? 'met' : 'NOT met'}`);
  console.log(`target: peak RSS under 1 GB: ${last.error.rssMb < 1024 ? 'met' : 'NOT met'}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
