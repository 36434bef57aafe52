import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { newEvent } from '../support/events.js';
import { basic, createCompanyClients, eventually, spawnServer, testEnv, type SpawnedServer } from '../support/harness.js';

// `WORKERS=N npm start` (README, "One process per core"): N server processes on one port,
// new connections spread over them by the kernel, one SIGTERM stopping them all.

const spawned: SpawnedServer[] = [];
afterAll(() => {
  // The server processes too: a launcher killed outright leaves them for a moment.
  for (const server of spawned) {
    server.child.kill('SIGKILL');
    for (const pid of pidsOf(server.output(), 'listening')) alive(pid) && process.kill(pid, 'SIGKILL');
  }
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A request on a connection of its own (no keep-alive), so the kernel picks a process for each; its status. */
function freshConnection(url: string, path: string, post?: { key: string; body: unknown }): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { connection: 'close' };
    if (post) Object.assign(headers, { authorization: basic(post.key), 'content-type': 'application/json' });
    const req = request(`${url}${path}`, { agent: false, method: post ? 'POST' : 'GET', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(post ? JSON.stringify(post.body) : undefined);
  });
}

const pidsOf = (output: string, msg: string) =>
  new Set(
    output
      .split('\n')
      .filter((line) => line.includes(`"msg":"${msg}"`))
      .map((line) => (JSON.parse(line) as { pid: number }).pid),
  );

describe('server processes on one port', () => {
  it('runs WORKERS processes that all answer on the one port, sell from the same inventory, and stop together on SIGTERM', async () => {
    const server = await spawnServer(testEnv({ WORKERS: '2', LOG_LEVEL: 'info' }));
    spawned.push(server);
    await eventually(async () => pidsOf(server.output(), 'listening').size === 2, 20_000, 50);
    const { port } = new URL(server.url);
    expect(server.output().match(new RegExp(`"port":${port}[^\\n]*"msg":"listening"`, 'g'))).toHaveLength(2);

    // Connections of their own reach both processes.
    await eventually(
      async () => {
        await Promise.all(Array.from({ length: 10 }, async () => expect(await freshConnection(server.url, '/health')).toBe(200)));
        return pidsOf(server.output(), 'request').size === 2;
      },
      10_000,
      0,
    );
    expect([...pidsOf(server.output(), 'request')].every((pid) => pidsOf(server.output(), 'listening').has(pid))).toBe(true);

    // One inventory: bookings of one seat from fresh clients, whichever process answers, sell it
    // once. The kernel spreads connections by a hash of their ports, so one batch may all land
    // on one process: batches go on until each process has answered bookings, and a booking's
    // log line is written after its answer, so each batch waits for its lines first.
    const clients = await createCompanyClients(server.url);
    const event = await newEvent(clients.api, rowsWithoutSections);
    const before = pidsOf(server.output(), 'request').size;
    const book = { key: clients.company.workspace.secretKey, body: { objects: ['B-3'] } };
    const bookingLines = () => server.output().split('\n').filter((line) => line.includes('"route":"POST /events/:key/actions/book"'));
    const answers: number[] = [];
    await eventually(
      async () => {
        answers.push(...(await Promise.all(Array.from({ length: 20 }, () => freshConnection(server.url, `/events/${event.key}/actions/book`, book)))));
        await eventually(async () => bookingLines().length === answers.length, 10_000, 10);
        return new Set(bookingLines().map((line) => (JSON.parse(line) as { pid: number }).pid)).size === 2;
      },
      20_000,
      0,
    );
    expect(answers.length).toBeGreaterThanOrEqual(20);
    expect(answers.filter((status) => status === 204)).toHaveLength(1);
    expect(answers.filter((status) => status === 400)).toHaveLength(answers.length - 1);
    expect(before).toBe(2);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(pidsOf(server.output(), 'stopped').size).toBe(2);
  });

  it('the server processes stop when the launcher is killed outright', async () => {
    const server = await spawnServer(testEnv({ WORKERS: '2', LOG_LEVEL: 'info' }));
    spawned.push(server);
    await eventually(async () => pidsOf(server.output(), 'listening').size === 2, 20_000, 50);
    const pids = [...pidsOf(server.output(), 'listening')];
    expect(pids.every(alive)).toBe(true);
    server.child.kill('SIGKILL');
    await eventually(async () => !pids.some(alive), 15_000, 50);
    expect(pids.filter(alive)).toEqual([]);
  });

  it('starts another process when one dies', async () => {
    const server = await spawnServer(testEnv({ WORKERS: '2', LOG_LEVEL: 'info' }));
    spawned.push(server);
    await eventually(async () => pidsOf(server.output(), 'listening').size === 2, 20_000, 50);
    const [first] = [...pidsOf(server.output(), 'listening')];
    process.kill(first!, 'SIGKILL');
    await eventually(async () => pidsOf(server.output(), 'listening').size === 3, 20_000, 50);
    expect(await freshConnection(server.url, '/health')).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});
