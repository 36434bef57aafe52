import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Five projects: the unit tests, which need no server; every other test file against one
// redis-server; the suites of the priority lane, seasons, hold tokens, the history and the
// status stream once more against a 3-master Redis Cluster (docs/operations.md, "Redis
// Cluster"; test/support/globalSetup.ts starts whichever the project needs); the files that
// need a process of their own; and, once those are done, the failover tests, which start
// their own servers.
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

// Files that watch process-wide handlers (unhandled rejections): each in a process of its own.
const OWN_PROCESS = ['test/integration/redisTimeouts.test.ts'];

// Redis's primary or a cluster's master killed under load, each test starting its own servers.
const FAILOVER = ['test/integration/failover.test.ts', 'test/integration/failoverSurvivors.test.ts', 'test/cluster/masterFailover.test.ts', 'test/cluster/waitAborted.test.ts'];

/**
 * The files that take longest, first: started last, one would hold the run up alone (without
 * timings of an earlier run, as on a fresh clone, vitest orders files by size).
 */
const SLOW_FIRST = ['bench', 'benchTarget', 'statusStream', 'statusStreamPing', 'holdExpiryAtScale', 'composeHa', 'startup', 'historyDrain', 'serverProcesses', 'fuzz', 'shutdown', 'openConnections', 'holdExpiry', 'devServer', 'failover', 'masterFailover', 'failoverSurvivors', 'waitAborted'].map((name) => `/${name}.test.ts`);

const WORKERS = Number(process.env.TEST_WORKERS ?? 4);

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = SLOW_FIRST.findIndex((name) => file.moduleId.endsWith(name));
      return at === -1 ? SLOW_FIRST.length : at;
    };
    return sorted.map((file, i) => ({ file, i })).sort((a, b) => rank(a.file) - rank(b.file) || a.i - b.i).map(({ file }) => file);
  }
}

export default defineConfig({
  test: {
    globalSetup: ['test/support/freshBuild.ts', 'test/support/globalSetup.ts'],
    // The tests' imports of the server's and the bench's modules load the build in dist/,
    // natively (test/support/freshBuild.ts keeps it current): the server's modules load in
    // about 0.7 s that way, against 2.3 s through vitest's transform. Test files and
    // test/support stay TypeScript, transformed.
    alias: [{ find: /^(?:\.\.\/)+(src|bench)\/(.*)$/, replacement: `${import.meta.dirname}/dist/$1/$2` }],
    server: { deps: { external: [/\/dist\//] } },
    // The suite is CPU-bound on two cores, and a file in a process of its own paid a fork and a
    // fresh load of the server's modules (about a second of CPU) before its first test. So files
    // run in worker threads that each run file after file (no isolation): each thread loads the
    // modules once. Files already keep apart by their own servers, databases and key prefixes.
    // A thread pool that shrinks below its size kills a thread vitest still holds ("Terminating
    // worker thread"), hence as many threads at least as at most. Forked processes, one per
    // file, for the files that need one (OWN_PROCESS) and the failover files.
    pool: 'threads',
    poolOptions: { threads: { isolate: false, minThreads: WORKERS, maxThreads: WORKERS } },
    sequence: { sequencer: SlowFirst },
    // Most files wait on servers, timers and child processes rather than compute, so more
    // files run at once than there are cores (vitest's default here would be one).
    maxWorkers: WORKERS,
    minWorkers: 1,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'redis', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/unit/**', 'test/cluster/**', ...OWN_PROCESS, ...FAILOVER] } },
      { extends: true, test: { name: 'cluster', include: [...ON_CLUSTER, 'test/cluster/**/*.test.ts'], exclude: [...configDefaults.exclude, ...FAILOVER] } },
      { extends: true, test: { name: 'process', include: OWN_PROCESS, pool: 'forks' } },
      // After the others, side by side (four files): a failover's timings (promotion, the
      // window of 503s) are what these tests measure, and beside the other files on two cores
      // they stretch past what the tests allow.
      { extends: true, test: { name: 'failover', include: FAILOVER, pool: 'forks', sequence: { groupOrder: 1 } } },
    ],
  },
});
