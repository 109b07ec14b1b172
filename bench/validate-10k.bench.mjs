// Validation of a generated 10,000-step playbook, through the CLI (wall time, node start included) and
// in-process (YAML parse vs our validation). Target: under 1 s.
// Usage: npm run build && node bench/validate-10k.bench.mjs [steps]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { importTs } from '../scripts/import-ts.mjs';
import { CLI, median, table, timeCommand } from './cli.mjs';

const steps = Number(process.argv[2] ?? 10_000);
const dir = mkdtempSync(join(tmpdir(), 'lb-bench-'));
const file = join(dir, 'big.yaml');
// A realistic shape: block style, an expression in every step, a mix of kinds.
let text = `name: big\ninputs:\n  n: { type: integer, default: 3 }\nsteps:\n`;
for (let i = 0; i < steps; i++) {
  text +=
    i % 2 === 0
      ? `  - id: s${i}\n    uses: core.log\n    with:\n      message: "step ${i} of \${{ inputs.n }}"\n`
      : `  - id: s${i}\n    uses: core.shell\n    with:\n      run: "echo ${i}"\n      creates: "out/${i}"\n`;
}
writeFileSync(file, text);

try {
  const cli = median(timeCommand([CLI, 'validate', file], { runs: 5 }));
  const { parseSource } = await importTs(new URL('../src/playbook/load.ts', import.meta.url).pathname);
  const { validatePlaybook } = await importTs(
    new URL('../src/playbook/validate.ts', import.meta.url).pathname,
  );
  const { stepKinds } = await importTs(new URL('../src/steps/index.ts', import.meta.url).pathname);
  const parse = [];
  const validate = [];
  for (let i = 0; i < 5; i++) {
    const source = readFileSync(file, 'utf8');
    let t = performance.now();
    const { doc } = parseSource(file, source);
    parse.push(performance.now() - t);
    t = performance.now();
    const result = validatePlaybook(doc, { registry: stepKinds });
    validate.push(performance.now() - t);
    if (result.diagnostics.length > 0)
      throw new Error(`the generated playbook is invalid: ${result.diagnostics[0].message}`);
  }
  console.log(
    table([
      ['measure', `${steps} steps, ${text.split('\n').length - 1} lines`],
      ['ledgerbook validate (CLI, wall, median of 5)', `${cli.toFixed(0)} ms`],
      ['  YAML parse (fast path; positions mapped only for a finding)', `${median(parse).toFixed(0)} ms`],
      [
        '  schemas + rules (in-process, median; validators compiled at first use)',
        `${median(validate).toFixed(0)} ms`,
      ],
    ]),
  );
  console.log(`\ntarget: under 1 s through the CLI: ${cli < 1000 ? 'met' : 'NOT met'}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
