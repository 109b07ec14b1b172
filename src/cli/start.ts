#!/usr/bin/env node
/**
 * The `ledgerbook` executable (dist/cli/main.js): turns on the code cache of the CLI's modules, then loads the
 * command line itself (main.ts, built as dist/cli/cli.js). The build makes this a CommonJS module, so `__dirname`
 * and `__filename` are its own (src/cli/code-cache.ts, docs/architecture.md "Start-up").
 */
import { createRequire } from 'node:module';
import { useCodeCache } from './code-cache.js';

useCodeCache(__dirname);
createRequire(__filename)('./cli.js');
