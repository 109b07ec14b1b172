// Builds the sandbox into dist/index.js: one esbuild bundle of src/index.ts, its dependencies left to
// node_modules. The CLI loads it at run time through the package's entry (`import('@ledgerbook/sandbox')`).
// Type checking is the repository's `npm run typecheck`.
import { rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// written beside dist/ and swapped in, so a CLI started meanwhile never loads a half-written bundle
const staging = join(root, `.dist-${process.pid}`);
await build({
  entryPoints: [join(root, 'src', 'index.ts')],
  outfile: join(staging, 'index.js'),
  bundle: true,
  packages: 'external',
  platform: 'node',
  target: 'node20',
  format: 'esm',
  logLevel: 'warning',
});
const retired = join(root, `.dist-old-${process.pid}`);
await rename(join(root, 'dist'), retired).catch((error) => {
  if (error.code !== 'ENOENT') throw error;
});
await rename(staging, join(root, 'dist'));
await rm(retired, { recursive: true, force: true });
