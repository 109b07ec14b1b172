// Imports a TypeScript module of this repository from a script: esbuild bundles it (packages stay external)
// into a temporary .mjs file next to the source tree, which is imported and removed.
import { mkdtemp, rm } from 'node:fs/promises';
import process from 'node:process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export async function importTs(entry) {
  const dir = await mkdtemp(join(process.cwd(), '.import-ts-'));
  try {
    const outfile = join(dir, 'module.mjs');
    await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'error',
    });
    return await import(pathToFileURL(outfile).href);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
