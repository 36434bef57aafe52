import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureOpenConnections, type OpenConnectionsFigures } from '../../bench/lib/openConnections.js';
import { createTestCompany, spawnServer, testEnv, type SpawnedServer } from '../support/harness.js';

// 10,000 idle keep-alive connections to the built server in a process of its own (docs/benchmarks.md,
// "Benches of one part"; `npm run bench:connections` measures the same on the
// embedded defaults): requests on another connection are still answered, nothing fails,
// the server's RSS grows by less than 10 KB per connection, and the server closes the idle
// connections itself (uWebSockets.js: about 10 s idle) and goes on.

const CONNECTIONS = 10_000;
/** A generous bound on the server's RSS per open connection (measured: about 2 KB). */
const MAX_BYTES_PER_CONNECTION = 10 * 1024;

let server: SpawnedServer;
let workspaceKey: string;

beforeAll(async () => {
  server = await spawnServer(testEnv());
  workspaceKey = (await createTestCompany(server.url)).workspace.secretKey;
});

afterAll(async () => {
  if (server && server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
});

describe(`${CONNECTIONS} open connections`, () => {
  it('still answers requests on other connections, with RSS bounded per connection; closes them itself once idle', { timeout: 60_000 }, async () => {
    const figures: OpenConnectionsFigures = await measureOpenConnections({ url: server.url, pid: server.child.pid!, count: CONNECTIONS, workspaceKey, awaitIdleClose: true });
    const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
    console.log(
      [
        `connections: ${figures.opened} opened of ${figures.requested} wanted in ${figures.openSeconds} s` +
          (figures.limitedBy ? ` (FEWER: ${figures.limitedBy})` : '') +
          `; ulimit -n here ${figures.fdLimit.soft} (hard ${figures.fdLimit.hard}), server ${figures.serverFdLimit}`,
        `server RSS: ${mb(figures.rssBeforeBytes)} before, ${mb(figures.rssWithConnectionsBytes)} with them open: ${figures.rssGrowthPerConnectionBytes} bytes per connection`,
        `probe p50/p99/max ms: before ${figures.probeBefore.p50Ms}/${figures.probeBefore.p99Ms}/${figures.probeBefore.maxMs}, while open ${figures.probeWhileOpen.p50Ms}/${figures.probeWhileOpen.p99Ms}/${figures.probeWhileOpen.maxMs}`,
        `idle close: ${figures.idleClose?.closedByServer} closed by the server within ${figures.idleClose?.lastClosedAfterSeconds} s; RSS then ${mb(figures.idleClose?.rssAfterBytes ?? 0)}`,
      ].join('\n'),
    );

    expect(figures.target).toBe(figures.limitedBy ? figures.target : CONNECTIONS);
    expect(figures.target).toBeGreaterThanOrEqual(1000);
    expect(figures.failedToOpen).toBe(0);
    expect(figures.opened).toBe(figures.target);
    // None dropped before the server's idle timeout (about 10 s: measured 8 to 12 s).
    if (figures.probesEndedAfterSeconds < 7) expect(figures.stillOpen, 'every connection was still open while the probes ran').toBe(figures.opened);
    else console.log(`opening and probing took ${figures.probesEndedAfterSeconds} s: too slow a machine to check that none was dropped before its idle timeout`);
    expect(figures.probeBefore.failed).toBe(0);
    expect(figures.probeWhileOpen.failed).toBe(0);
    expect(figures.rssGrowthPerConnectionBytes).toBeLessThan(MAX_BYTES_PER_CONNECTION);
    expect(figures.serverAlive).toBe(true);
    expect(figures.idleClose!.closedByServer).toBe(figures.opened);

    // And it goes on serving.
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });
});
