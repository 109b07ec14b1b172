/**
 * A kind's declaration (`<kind>.declaration.ts`) is all `validate` loads of it: it must bring none of the kind's
 * run-time code along. Each declaration module is bundled as the build bundles it, and every module that puts
 * code into the bundle must be one a declaration may use: another declaration or a `with` schema module, a reader
 * of the files a static check reads, the pure helpers of src/clients below (no client), and nothing of the engine
 * or of the run-time contract (src/steps/contract.ts): the declaration half is src/playbook/step-declaration.ts.
 */
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const STEPS = join(import.meta.dirname);
const ROOT = join(STEPS, '..', '..');

/** what a declaration's static check reads besides its own modules: a file of recipients, receipts, packages */
const READERS = [
  'src/steps/token/recipients.ts',
  'src/steps/token/csv.ts',
  'src/steps/token/rewards-data.ts',
  'src/steps/token/expected-list.ts',
  'src/steps/token/expected-packages.ts',
];
/** modules of src/clients that are no client: amounts and Bitcoin addresses read from their text, DPM names */
const PURE_CLIENT_HELPERS = [
  'src/clients/amount-text.ts',
  'src/clients/bitcoin-address.ts',
  'src/clients/dpm-wire-names.ts',
  'src/clients/dpm-wire-names.generated.ts',
];
/** the packages a declaration may bundle (bitcoin-address.ts decodes base58 and bech32 with it) */
const PACKAGES = ['node_modules/@scure/base/'];

function allowed(input: string): boolean {
  if (input.startsWith('node_modules/')) return PACKAGES.some((p) => input.startsWith(p));
  if (input.startsWith('src/steps/'))
    return /\.declaration\.ts$|(^|[/-])schema\.ts$/.test(input) || READERS.includes(input);
  if (input.startsWith('src/clients/')) return PURE_CLIENT_HELPERS.includes(input);
  if (input.startsWith('src/engine/')) return false;
  return input.startsWith('src/') && !/^src\/(cli|sandbox)\//.test(input);
}

function declarationModules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? declarationModules(join(dir, entry.name))
      : entry.name.endsWith('.declaration.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('the step kinds’ declarations', () => {
  it('bundle none of the kinds’ run-time code: no client, no run-time helper, no decimal.js', async () => {
    const modules = declarationModules(STEPS);
    expect(modules.length).toBeGreaterThan(40);
    const refused: string[] = [];
    for (const module of modules) {
      const result = await build({
        entryPoints: [module],
        absWorkingDir: ROOT,
        bundle: true,
        write: false,
        metafile: true,
        platform: 'node',
        format: 'esm',
        outdir: 'out',
        logLevel: 'silent',
      });
      const [output] = Object.values(result.metafile.outputs);
      for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {}))
        if (bytesInOutput > 0 && !allowed(input)) refused.push(`${relative(ROOT, module)} → ${input}`);
    }
    expect(refused).toEqual([]);
  });

  it('would refuse a client, a kind’s run-time module and decimal.js', () => {
    expect(allowed('src/clients/dpm.ts')).toBe(false);
    expect(allowed('src/clients/amount.ts')).toBe(false);
    expect(allowed('src/steps/party/onboard-party.ts')).toBe(false);
    expect(allowed('src/steps/party/workflow-runs.ts')).toBe(false);
    expect(allowed('node_modules/decimal.js/decimal.mjs')).toBe(false);
    expect(allowed('src/engine/run.ts')).toBe(false);
  });
});
