// The static checks of `npm test`, at the same time: the type check, the linter and the format check each take
// one core for most of their run, so side by side they take about as long as the longest alone. Each one's output
// is printed whole when it ends (never interleaved); the exit code is 1 if any failed.
import { execa } from 'execa';

const checks = [
  ['type check', 'tsc', ['--noEmit']],
  ['lint', 'eslint', ['--max-warnings', '0', '.']],
  ['format', 'prettier', ['--check', '.']],
];

const results = await Promise.all(
  checks.map(async ([name, command, args]) => {
    const started = Date.now();
    const result = await execa(command, args, { preferLocal: true, reject: false, all: true });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const verdict = result.exitCode === 0 ? 'passed' : `failed (exit ${result.exitCode ?? result.signal})`;
    process.stdout.write(`── ${name}: ${[command, ...args].join(' ')} — ${verdict} in ${seconds} s\n`);
    if (result.all) process.stdout.write(`${result.all.trimEnd()}\n`);
    return result.exitCode === 0;
  }),
);
process.exitCode = results.every(Boolean) ? 0 : 1;
