import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most end-to-end files wait on the sandbox's simulated latencies rather than the CPU: two files at a time on
    // CI's two cores halve the suite (1 worker, vitest's default there: ~600 s; 2 workers: 299 s, all passing).
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
  },
});
