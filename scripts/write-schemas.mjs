// Writes schemas/*.json from the TypeScript sources.
// Usage: npm run build && node scripts/write-schemas.mjs
// test/schemas.test.ts fails when the files on disk differ from what this writes.
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { importTs } from './import-ts.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { schemaFiles } = await importTs(join(root, 'src', 'cli', 'schema-files.ts'));
const { loadAllStepKinds } = await importTs(join(root, 'src', 'steps', 'index.ts'));
const outDir = join(root, 'schemas');
const files = schemaFiles(await loadAllStepKinds());

const wanted = new Set(Object.keys(files).map((path) => join(outDir, path)));
for (const [path, schema] of Object.entries(files)) {
  const file = join(outDir, path);
  await mkdir(dirname(file), { recursive: true });
  const options = (await prettier.resolveConfig(file)) ?? {};
  const text = await prettier.format(JSON.stringify(schema, null, 2), { ...options, filepath: file });
  await writeFile(file, text);
  process.stdout.write(`wrote ${relative(root, file)}\n`);
}

// A schema for a step kind that no longer exists would mislead editors: remove it.
for (const entry of await readdir(outDir, { recursive: true, withFileTypes: true })) {
  const file = join(entry.parentPath ?? entry.path, entry.name);
  if (entry.isFile() && file.endsWith('.schema.json') && !wanted.has(file)) {
    await rm(file);
    process.stdout.write(`removed ${relative(root, file)}\n`);
  }
}
