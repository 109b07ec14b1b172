// Validation of a generated 10,000-step playbook, valid and with one error near the end: through the CLI (wall
// time, node start included; the two alternated, the ratio taken pair by pair) and in-process (YAML reading, our
// validation, and for the file with the error, finding the positions of its findings).
// Targets: under 1 s; the run with an error at most 1.5× the valid run.
// Usage: npm run build && node bench/validate-10k.bench.mjs [steps] [runs]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { importTs } from '../scripts/import-ts.mjs';
import { median, table } from './cli.mjs';
import { pairedRuns, plainPlaybook } from './validate-playbooks.mjs';

const steps = Number(process.argv[2] ?? 10_000);
const runs = Number(process.argv[3] ?? 7);
const dir = mkdtempSync(join(tmpdir(), 'lb-bench-'));
const valid = join(dir, 'big.yaml');
const invalid = join(dir, 'big-error.yaml');
const text = plainPlaybook(steps);
writeFileSync(valid, text);
writeFileSync(invalid, plainPlaybook(steps, { error: true }));

try {
  const cli = pairedRuns(['validate', valid], ['validate', invalid], runs);
  const { parseSource } = await importTs(new URL('../src/validation/load.ts', import.meta.url).pathname);
  const { validatePlaybook } = await importTs(
    new URL('../src/validation/validate.ts', import.meta.url).pathname,
  );
  const { stepKinds } = await importTs(new URL('../src/steps/index.ts', import.meta.url).pathname);
  await stepKinds.load(stepKinds.names);
  const time = (file, expectFindings) => {
    const source = readFileSync(file, 'utf8');
    let t = performance.now();
    const { doc } = parseSource(file, source);
    const parse = performance.now() - t;
    t = performance.now();
    const result = validatePlaybook(doc, { registry: stepKinds });
    const validate = performance.now() - t;
    if (result.diagnostics.length > 0 !== expectFindings)
      throw new Error(`${file}: unexpected findings: ${JSON.stringify(result.diagnostics.slice(0, 3))}`);
    return { parse, validate };
  };
  const inProcess = { valid: [], invalid: [] };
  for (let i = 0; i < runs; i++) {
    inProcess.valid.push(time(valid, false));
    inProcess.invalid.push(time(invalid, true));
  }
  const ms = (list, key) => `${median(list.map((r) => r[key])).toFixed(0)} ms`;
  console.log(
    table([
      ['measure', `${steps} steps, ${text.split('\n').length - 1} lines, median of ${runs}`],
      ['ledgerbook validate (CLI, wall), valid', `${cli.valid.ms.toFixed(0)} ms`],
      ['ledgerbook validate (CLI, wall), one error near the end', `${cli.error.ms.toFixed(0)} ms`],
      ['  error / valid, paired', `${cli.ratio.toFixed(2)}×`],
      ['  YAML parse (in-process)', ms(inProcess.valid, 'parse')],
      [
        '  schemas + rules, valid (in-process; validators compiled at first use)',
        ms(inProcess.valid, 'validate'),
      ],
      ['  schemas + rules + positions of the findings, one error', ms(inProcess.invalid, 'validate')],
    ]),
  );
  console.log(`\nfindings: ${cli.findings.join(' / ')}`);
  console.log(`target: under 1 s through the CLI: ${cli.valid.ms < 1000 ? 'met' : 'NOT met'}`);
  console.log(`target: an error costs at most 1.5× a valid run: ${cli.ratio <= 1.5 ? 'met' : 'NOT met'}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
