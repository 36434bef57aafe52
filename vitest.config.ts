import { configDefaults, defineConfig } from 'vitest/config';

// Two projects: every test file against one redis-server, and the suites of the priority
// lane, seasons, hold tokens, the history and the status stream once more against a 3-master Redis Cluster
// (docs/operations.md, "Redis Cluster"; test/support/globalSetup.ts starts whichever the project needs).
const ON_CLUSTER = [
  'objectStatus',
  'holds',
  'statusConcurrency',
  'generalAdmission',
  'holdTokens',
  'holdTokenRefusals',
  'holdExpiry',
  'seasonRoutes',
  'seasonRules',
  'statusChangeHistory',
  'historyDrain',
  'bestAvailable',
  'statusStream',
].map((name) => `test/integration/${name}.test.ts`);

export default defineConfig({
  test: {
    globalSetup: ['test/support/globalSetup.ts'],
    // The native uWS addon and child processes are simplest in forked workers.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'redis', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/cluster/**'] } },
      { extends: true, test: { name: 'cluster', include: [...ON_CLUSTER, 'test/cluster/**/*.test.ts'] } },
    ],
  },
});
