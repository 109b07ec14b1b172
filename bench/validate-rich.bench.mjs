// Validation of a richer generated 10,000-step playbook — six step kinds (two of them checked against the
// target playbooks/targets/sandbox.yaml), `${{ }}` references in most fields — through the CLI, valid and with
// one error near the end, alternated; the ratio is taken pair by pair. Target: the valid run under 0.5 s.
// Usage: npm run build && node bench/validate-rich.bench.mjs [steps] [runs]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { table } from './cli.mjs';
import { pairedRuns, richPlaybook } from './validate-playbooks.mjs';

const steps = Number(process.argv[2] ?? 10_000);
const runs = Number(process.argv[3] ?? 7);
const target = new URL('../playbooks/targets/sandbox.yaml', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'lb-bench-'));
const valid = join(dir, 'rich.yaml');
const invalid = join(dir, 'rich-error.yaml');
const text = richPlaybook(steps);
writeFileSync(valid, text);
writeFileSync(invalid, richPlaybook(steps, { error: true }));

try {
  const args = (file) => ['validate', file, '--target', target];
  const cli = pairedRuns(args(valid), args(invalid), runs);
  console.log(
    table([
      [
        'measure',
        `${steps} steps, ${text.split('\n').length - 1} lines, ${(text.length / 1e6).toFixed(1)} MB, median of ${runs}`,
      ],
      ['ledgerbook validate --target … (CLI, wall), valid', `${cli.valid.ms.toFixed(0)} ms`],
      ['ledgerbook validate --target … (CLI, wall), one error near the end', `${cli.error.ms.toFixed(0)} ms`],
      ['  error / valid, paired', `${cli.ratio.toFixed(2)}×`],
      ['  peak RSS, valid / one error', `${cli.valid.rssMb.toFixed(0)} / ${cli.error.rssMb.toFixed(0)} MB`],
    ]),
  );
  console.log(`\nfindings: ${cli.findings.join(' / ')}`);
  console.log(`target: the valid run under 0.5 s: ${cli.valid.ms < 500 ? 'met' : 'NOT met'}`);
  console.log(`target: an error costs at most 1.5× a valid run: ${cli.ratio <= 1.5 ? 'met' : 'NOT met'}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
