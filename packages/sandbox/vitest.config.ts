import { defineConfig } from 'vitest/config';

// The sandbox's own tests, alone: `npm test -w @ledgerbook/sandbox` (or `npx vitest run packages/sandbox` from
// the repository's root, with the root's settings).
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
