#!/usr/bin/env node
/**
 * The `ledgerbook` executable (dist/cli/main.js): turns on the code cache of the CLI's modules, then loads the
 * command line itself (main.ts, built as dist/cli/cli.js). The build makes this a CommonJS module, so `__dirname`
 * and `__filename` are its own (src/cli/code-cache.ts, docs/architecture.md "Start-up").
 */
import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { EXIT } from '../errors.js';
import { useCodeCache } from './code-cache.js';
import { damagedBuildMessage } from './damaged-build.js';

useCodeCache(__dirname);
try {
  createRequire(__filename)('./cli.js');
} catch (error) {
  const damaged = damagedBuildMessage(error, __dirname);
  if (damaged === undefined) throw error;
  writeSync(2, damaged);
  process.exitCode = EXIT.INTERNAL;
}
