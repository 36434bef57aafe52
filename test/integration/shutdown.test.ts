import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startRedisServer } from '../../src/embedded/redisServer.js';
import {
  basic,
  client,
  createTestCompany,
  eventually,
  spawnServer,
  startTestServer,
  testEnv,
  type SpawnedServer,
} from '../support/harness.js';

// Graceful shutdown of the built server (what `npm start` runs): on SIGTERM it keeps
// accepting until requests stop arriving (so connections the kernel already accepted are
// not reset), stops accepting, lets every request it received run to its end, then exits 0.

interface Outcome {
  index: number;
  status?: number;
  error?: string;
  /** Date.now() when the response (or the error) arrived. */
  at: number;
}

const spawned: SpawnedServer[] = [];

afterEach(() => {
  // Never leave a server behind, whatever the test did.
  for (const server of spawned.splice(0)) {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  }
});

async function spawn(env: Record<string, string>): Promise<SpawnedServer> {
  const server = await spawnServer(env);
  spawned.push(server);
  return server;
}

/** Resolves with the error code of a plain TCP connection attempt, or 'connected'. */
function tryConnect(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

function errorCode(error: unknown): string {
  const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

async function countWorkspaces(mongodbDb: string, adminKey: string): Promise<number> {
  const server = await startTestServer({ MONGODB_DB: mongodbDb });
  try {
    const list = await client(server.url, adminKey).get('/workspaces?limit=1000');
    expect(list.status).toBe(200);
    expect(list.body.next_page_starts_after).toBeUndefined();
    return list.body.items.length;
  } finally {
    await server.stop();
  }
}

describe('graceful shutdown on SIGTERM', () => {
  it('answers every request in flight with 2xx, persists all of them and exits 0', async () => {
    const env = testEnv();
    const server = await spawn(env);
    const company = await createTestCompany(server.url);
    const N = 200;
    const headers = { authorization: basic(company.adminKey), 'content-type': 'application/json' };

    let signalledAt = 0;
    const signal = () => {
      if (signalledAt !== 0) return;
      signalledAt = Date.now();
      server.child.kill('SIGTERM');
    };

    const outcomes = await Promise.all(
      Array.from({ length: N }, async (_, index): Promise<Outcome> => {
        try {
          const response = await fetch(`${server.url}/workspaces`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ name: `shutdown-${index}` }),
          });
          const text = await response.text();
          const at = Date.now();
          signal(); // the first answer triggers the shutdown; the rest are still in flight
          return { index, status: response.status, at, ...(response.ok ? {} : { error: text }) };
        } catch (error) {
          return { index, error: errorCode(error), at: Date.now() };
        }
      }),
    );

    expect(signalledAt).toBeGreaterThan(0);
    // 200 concurrent creates also exercise insertWithNewId (src/metadata/counters.ts): the
    // in-memory wire server can hand out one counter value twice under this load.
    const failed = outcomes.filter((o) => o.status === undefined || o.status < 200 || o.status > 299);
    if (failed.length > 0) await server.exited; // so its log is complete
    const serverErrors = server.output().split('\n').filter((line) => line.includes('"level":50'));
    expect(failed, `requests lost or failed: ${JSON.stringify(failed.slice(0, 5))}\nserver errors:\n${serverErrors.join('\n')}`).toEqual([]);
    // The signal really came while requests were being worked on.
    const answeredAfterSignal = outcomes.filter((o) => o.at > signalledAt).length;
    expect(answeredAfterSignal).toBeGreaterThan(0);

    expect(await server.exited).toBe(0);
    const log = server.output();
    expect(log).toMatch(/"signal":"SIGTERM"[^\n]*shutting down/);
    expect(log).toMatch(/"clean":true[^\n]*"msg":"stopped"/);
    // ... and the server itself finished some of them after it had begun shutting down.
    const afterShutdownBegan = log.slice(log.indexOf('shutting down'));
    const finishedDuringShutdown = afterShutdownBegan.match(/"route":"POST \/workspaces","status":200[^\n]*"msg":"request"/g)?.length ?? 0;
    expect(finishedDuringShutdown).toBeGreaterThan(0);

    // Once it has exited nothing answers any more.
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
    expect(await tryConnect(server.url)).toBe('ECONNREFUSED');

    // The default workspace of the company plus one per request, all in MongoDB.
    expect(await countWorkspaces(env.MONGODB_DB!, company.adminKey)).toBe(1 + N);
  });

  it('refuses new connections while it waits for a request still in flight, then finishes it', async () => {
    const env = testEnv();
    const server = await spawn(env);
    const company = await createTestCompany(server.url);
    const { hostname, port } = new URL(server.url);

    // A request whose body is still on its way keeps the server busy as long as we want.
    const body = JSON.stringify({ name: 'slow-body' });
    const socket: Socket = connect({ host: hostname, port: Number(port) });
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    let answer = '';
    socket.on('data', (d) => (answer += d.toString()));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      'POST /workspaces HTTP/1.1\r\nHost: test\r\n' +
        `Authorization: ${basic(company.adminKey)}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n` +
        body.slice(0, 5),
    );
    // In flight: the half-sent request plus the /metrics request asking.
    await eventually(async () => {
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      return /^http_requests_in_flight 2$/m.test(metrics);
    }, 5_000);

    server.child.kill('SIGTERM');
    // Shutdown first keeps accepting until requests stop arriving, then closes the listener.
    await eventually(async () => server.output().includes('stopped accepting connections'), 5_000);
    // Still running (waiting for our request), but no longer accepting.
    expect(server.child.exitCode).toBeNull();
    expect(await tryConnect(server.url)).toBe('ECONNREFUSED');
    expect(await tryConnect(server.url)).toBe('ECONNREFUSED');
    expect(server.child.exitCode).toBeNull();

    socket.write(body.slice(5));
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer).toContain('"name":"slow-body"');
    expect(await server.exited).toBe(0);

    expect(await countWorkspaces(env.MONGODB_DB!, company.adminKey)).toBe(2);
  });

  it('exits 1 when a request is still in flight after SHUTDOWN_TIMEOUT_MS', async () => {
    const server = await spawn(testEnv({ SHUTDOWN_TIMEOUT_MS: '300' }));
    const { hostname, port } = new URL(server.url);
    const socket = connect({ host: hostname, port: Number(port) });
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    // Headers announce a body that never comes.
    socket.write('POST /workspaces HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
    await eventually(async () => /^http_requests_in_flight 2$/m.test(await (await fetch(`${server.url}/metrics`)).text()), 5_000);

    const started = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(server.output()).toMatch(/shutdown timeout: closing with requests in flight/);
    expect(server.output()).toMatch(/"clean":false[^\n]*"msg":"stopped"/);
    socket.destroy();
  });

  it('still exits when Redis is down at SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seatsio-shutdown-redis-'));
    const redis = await startRedisServer({ dir, appendOnly: false });
    try {
      const server = await spawn(testEnv({ REDIS_URL: redis.url, SHUTDOWN_TIMEOUT_MS: '1000' }));
      expect((await fetch(`${server.url}/ready`)).status).toBe(200);

      await redis.stop();
      // What an orchestrator does during the outage: probe readiness (its PING never gets an answer).
      expect((await fetch(`${server.url}/ready`)).status).toBe(503);

      server.child.kill('SIGTERM');
      const code = await Promise.race([server.exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running after 8 s'), 8_000))]);
      // No request was in flight, so nothing was cut: a clean exit.
      expect(code, server.output().split('\n').filter((l) => l.includes('"msg"')).slice(-3).join('\n')).toBe(0);
    } finally {
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);
});

describe('draining before the listener closes', () => {
  it('keeps answering new requests with Connection: close and /ready 503 until they stop coming', async () => {
    const server = await startTestServer();
    const company = await createTestCompany(server.url);
    const { hostname, port } = new URL(server.url);
    // A half-sent request keeps the shutdown from finishing while we look.
    const socket: Socket = connect({ host: hostname, port: Number(port) });
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`POST /workspaces HTTP/1.1\r\nHost: t\r\nAuthorization: ${basic(company.adminKey)}\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{`);
    await eventually(async () => server.app.parts.status.inFlight === 1, 2_000);

    const stopped = server.app.shutdown(5_000);
    const ready = await fetch(`${server.url}/ready`);
    expect(ready.status).toBe(503);
    expect((await ready.json()).errors[0]).toMatchObject({ code: 'NOT_READY', message: 'shutting down' });
    expect(ready.headers.get('connection')).toBe('close');
    const created = await client(server.url, company.adminKey).post('/workspaces', { name: 'during drain' });
    expect(created.status).toBe(200);
    expect(created.headers.get('connection')).toBe('close');

    // Once requests stop arriving the listener closes; the half-sent request still finishes.
    await eventually(async () => (await tryConnect(server.url)) === 'ECONNREFUSED', 3_000);
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('close', () => resolve(text));
    });
    socket.write('"name":"late"}'.padEnd(19, ' '));
    expect(await answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(await stopped).toBe(true);
  });
});
