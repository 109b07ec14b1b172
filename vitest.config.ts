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
    // Most end-to-end files wait on the sandbox's simulated latencies rather than the CPU: two files at a time on
    // CI's two cores halve the suite (1 worker, vitest's default there: ~600 s; 2 workers: 299 s, all passing).
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
  },
});
