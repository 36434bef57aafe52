import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    // The native uWS addon and child processes are simplest in forked workers.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
