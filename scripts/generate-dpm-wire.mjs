// Writes src/clients/dpm-wire.generated.ts from contracts/dpm.openapi.yaml (the DPM operator API's one
// description): the client's schemas, their TypeScript types and the route table.
// Usage: npm run contracts. test/contract/dpm-document.test.ts fails when the file differs from what this writes.
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { importTs } from './import-ts.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const file = join(root, 'src', 'clients', 'dpm-wire.generated.ts');
const { dpmWireSource } = await importTs(join(root, 'scripts', 'dpm-contract.ts'));
const options = (await prettier.resolveConfig(file)) ?? {};
await writeFile(file, await prettier.format(dpmWireSource(), { ...options, filepath: file }));
process.stdout.write(`wrote ${file.slice(root.length + 1)}\n`);
