// Writes, from contracts/dpm.openapi.yaml (the DPM operator API's one description), the client's schemas, their
// TypeScript types and the route table, and the sandbox's request bodies (GENERATED_FILES of dpm-contract.ts).
// Usage: npm run contracts. test/contract/dpm-document.test.ts fails when the file differs from what this writes.
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { importTs } from './import-ts.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { GENERATED_FILES, dpmNamesSource, dpmWireSource, sandboxRequestsSource } = await importTs(
  join(root, 'scripts', 'dpm-contract.ts'),
);
for (const [path, source] of [
  [GENERATED_FILES.client, dpmWireSource()],
  [GENERATED_FILES.names, dpmNamesSource()],
  [GENERATED_FILES.sandbox, sandboxRequestsSource()],
]) {
  const file = join(root, path);
  const options = (await prettier.resolveConfig(file)) ?? {};
  await writeFile(file, await prettier.format(source, { ...options, filepath: file }));
  process.stdout.write(`wrote ${path}\n`);
}
