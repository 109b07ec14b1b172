// Builds the sandbox package (packages/sandbox/dist, by its own build script), then the CLI into dist/cli/: one
// esbuild bundle (entry main.js, lazily loaded chunks per command), and the JSON Schema validators compiled to code
// ahead of time (validators/ for playbooks, targets, plans and each step kind's `with`; wire-validators/ for the
// bodies the clients check), so neither `ledgerbook validate` nor a run loads ajv's compiler or compiles a schema. Type checking is `npm run typecheck`.
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import process from 'node:process';
import { build } from 'esbuild';
import { importTs } from './import-ts.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Built beside dist/ and swapped in at the end, so a CLI started meanwhile never sees a half-written dist/.
const staging = join(root, `.dist-${process.pid}`);
const out = join(staging, 'cli');

// Heavy packages only some commands need stay outside the bundle and load from node_modules on demand.
// The sandbox is a package of its own, loaded at run time through its entry (src/cli/sandbox-package.ts).
const external = ['@ledgerbook/sandbox', 'jose', 'openid-client', 'undici', 'execa', 'fflate', 'decimal.js'];

await import(pathToFileURL(join(root, 'packages', 'sandbox', 'scripts', 'build.mjs')).href);

await mkdir(out, { recursive: true });
await build({
  entryPoints: [join(root, 'src', 'cli', 'main.ts')],
  outdir: out,
  bundle: true,
  splitting: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  external,
  // ajv and commander are CommonJS: give their require() calls a real require.
  banner: {
    js: "import { createRequire as __lbRequire } from 'node:module'; const require = __lbRequire(import.meta.url);",
  },
  logLevel: 'warning',
});

const { precompiledValidators, precompiledWireValidators } = await importTs(
  join(root, 'src', 'cli', 'precompile-validators.ts'),
);
// the playbook's, the target's, the saved plan's and each step kind's schema, one module each: the folder is
// SCHEMA_VALIDATORS_DIR of src/playbook/precompiled.ts
const validators = join(out, 'validators');
await mkdir(validators);
for (const [key, code] of await precompiledValidators())
  await writeFile(join(validators, `${key}.cjs`), code);
// the clients' wire schemas, one module each: the folder is WIRE_VALIDATORS_DIR of src/clients/schema-check.ts
const wire = join(out, 'wire-validators');
await mkdir(wire);
for (const [key, code] of precompiledWireValidators()) await writeFile(join(wire, `${key}.cjs`), code);

const retired = join(root, `.dist-old-${process.pid}`);
await rename(join(root, 'dist'), retired).catch((error) => {
  if (error.code !== 'ENOENT') throw error;
});
await rename(staging, join(root, 'dist'));
await rm(retired, { recursive: true, force: true });
