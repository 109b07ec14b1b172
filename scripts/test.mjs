// `npm test`: the static checks (type check, linter, format check) and the test suite, at the same time. The
// suite leaves part of CI's two cores idle (many of its end-to-end tests wait on the sandbox's simulated
// latencies), and the checks take about 1.5 minutes of both cores on their own: run at a lower priority beside the
// suite, they use the time it leaves. The suite's output streams as it runs; each check's
// output is printed whole after it (never interleaved); the exit code is 1 if anything failed. Arguments go to
// vitest (`npm test -- test/e2e/party.test.ts`).
import { setPriority } from 'node:os';
import process from 'node:process';
import { execa } from 'execa';

/** below the suite's priority: a check never takes a core from a test that waits on a clock */
const CHECK_PRIORITY = 10;

const checks = [
  ['type check', 'tsc', ['--noEmit']],
  ['lint', 'eslint', ['--max-warnings', '0', '.']],
  ['format', 'prettier', ['--check', '.']],
];

const checked = checks.map(([name, command, args]) => {
  const started = Date.now();
  const child = execa(command, args, { preferLocal: true, reject: false, all: true });
  try {
    setPriority(child.pid, CHECK_PRIORITY);
  } catch {
    // a system that does not let a process lower its child's priority runs the check as it is
  }
  return child.then((result) => ({
    name,
    command: [command, ...args].join(' '),
    result,
    seconds: ((Date.now() - started) / 1000).toFixed(1),
  }));
});

const suite = execa('vitest', ['run', ...process.argv.slice(2)], {
  preferLocal: true,
  reject: false,
  stdio: 'inherit',
});

const results = await Promise.all(checked);
const tests = await suite;
for (const { name, command, result, seconds } of results) {
  const verdict = result.exitCode === 0 ? 'passed' : `failed (exit ${result.exitCode ?? result.signal})`;
  process.stdout.write(`── ${name}: ${command} — ${verdict} in ${seconds} s\n`);
  if (result.all) process.stdout.write(`${result.all.trimEnd()}\n`);
}
const failed = [...results.map(({ result }) => result), tests].filter((r) => r.exitCode !== 0).length;
process.exitCode = failed === 0 ? 0 : 1;
