import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // tests load the sandbox from its source through the package's public entry (the CLI in dist/ loads its build)
    alias: [
      {
        find: /^@ledgerbook\/sandbox$/,
        replacement: fileURLToPath(new URL('packages/sandbox/src/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    include: [
      'src/**/*.test.ts',
      'test/**/*.test.ts',
      'packages/*/src/**/*.test.ts',
      'packages/*/test/**/*.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most end-to-end files wait on the sandbox's simulated latencies rather than the CPU (the suite keeps about
    // 1.3 of CI's two cores busy with two files at a time): with three files at a time on two cores the suite took
    // 385 s on a quiet machine (2,094 tests, all passing), with two 516 s on a busier one (not a paired measure).
    maxWorkers: 3,
    globalSetup: ['test/global-setup.ts'],
  },
});
