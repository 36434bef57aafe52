import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printedKey, startDevServer } from '../../bench/lib/devServer.js';
import { basicAuth } from '../../bench/lib/measure.js';
import type { ChildServer } from '../../src/embedded/childServer.js';
import { BENCH_SCENARIOS } from '../support/benchScenarios.js';
import { freePort } from '../../src/embedded/freePort.js';

// The bench against a server it did not start (`node dist/bench/run.js --target URL`,
// bench/lib/target.ts): a server started here as `npm run dev` starts it (its own redis-server
// and MongoDB wire server), measured at the smoke scale from a company the bench makes itself,
// every correctness check read through the API; then `--cleanup` removes what the run made.
// And the bad targets: nothing listening, a wrong system secret, a server that is not this
// project, each one line on stderr and exit code 1, before any load.

/** What --target leaves out: the scenarios that need the server's processes or its Redis. */
const NOT_ON_A_TARGET = ['ceiling', 'referenceBook2', 'referenceHealth', 'referenceReleaseChurn', 'referenceSeasonEventBook', 'eventsAndMemory', 'statusStreamIdle'];
/** What --target runs, in order: the others. */
const ON_A_TARGET = BENCH_SCENARIOS.filter((name) => !NOT_ON_A_TARGET.includes(name));

const dir = mkdtempSync(join(tmpdir(), 'bench-target-'));
let server: ChildServer;
let redis: Redis;
let systemSecret: string;

beforeAll(async () => {
  server = await startDevServer('target');
  systemSecret = printedKey(server, 'System API secret');
  redis = new Redis(/Redis\s+(redis:\/\/\S+)/.exec(server.output())![1]!);
}, 90_000);

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The bench with `args`: its exit code and what it printed. */
async function bench(args: string[], timeout = 60_000): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['dist/bench/run.js', ...args], { timeout, maxBuffer: 16 * 2 ** 20 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout: string; stderr: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The server's count of answers on a route (its GET /metrics), all statuses together. */
async function answered(route: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return [...text.matchAll(/^http_requests_total\{route="([^"]+)",status="\d+"\} (\d+)$/gm)].filter((m) => m[1] === route).reduce((n, m) => n + Number(m[2]), 0);
}

describe('npm run bench -- --target URL', () => {
  it('runs the on-sale scenarios against it in a company of its own, checks them through the API, and --cleanup removes what it made', async () => {
    const output = join(dir, 'target.json');
    const bookingsBefore = await answered('POST /events/:key/actions/book');
    const run = await bench(['--target', server.url, '--system-secret', systemSecret, '--smoke', '--no-warm-up', '--output', output], 240_000);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(output, 'utf8'));
    expect(report.mode).toBe('smoke');
    expect(report.target).toEqual({ url: server.url, runId: expect.stringMatching(/^bench-\d{8}t\d{4}-[0-9a-f]{6}$/) });
    const { runId } = report.target;
    expect(Object.keys(report.scenarios)).toEqual(ON_A_TARGET);
    // What needs the server's processes or Redis is not run, each with why.
    expect(Object.keys(report.skipped)).toEqual(NOT_ON_A_TARGET);
    for (const name of NOT_ON_A_TARGET) expect(run.stdout).toContain(`not run with --target: ${name} (`);
    for (const name of ON_A_TARGET) {
      const figures = report.scenarios[name];
      expect(figures, name).toMatchObject({ rps: expect.any(Number), p50Ms: expect.any(Number), p99Ms: expect.any(Number), non2xx: expect.any(Number) });
      expect(figures.rps, name).toBeGreaterThan(0);
      expect(figures.errors, name).toBe(0);
      // Client-side figures only: no CPU, memory or ratio to a ceiling of this machine.
      for (const figure of ['serverUsPerRequest', 'redisUsPerRequest', 'serverCpuPct', 'ratioToCeiling', 'serverRssMbAfter', 'summaryServerCpuMs']) expect(figures[figure], `${name} ${figure}`).toBeUndefined();
      // Its answers second by second, for the HTML report.
      expect(report.timelines[name].rps.length, name).toBeGreaterThan(0);
    }
    // The correctness checks, read through the API.
    const { book2, holdThenBook, releaseChurn, hotSeats, gaSellOut, seasonBook, seasonEventBook, bestAvailable4, book2WhileReporting } = report.scenarios;
    for (const figures of [book2, holdThenBook, releaseChurn, seasonBook, seasonEventBook]) expect(figures.non2xx).toBe(0);
    for (const figures of [book2, holdThenBook, hotSeats, seasonBook, seasonEventBook, bestAvailable4, book2WhileReporting]) expect([figures.doubleBookings, figures.lostBookings]).toEqual([0, 0]);
    expect(book2.seatsBooked).toBeGreaterThan(0);
    expect(hotSeats).toMatchObject({ successes: 100, refused400: 900, otherAnswers: 0, seatsBookedInState: 100, strayBookings: 0 });
    expect(gaSellOut).toMatchObject({ placesSold: gaSellOut.capacity, placesBookedInState: gaSellOut.capacity, oversold: 0, lostPlaces: 0 });
    expect(releaseChurn).toMatchObject({ strayBookings: 0, cycles: expect.any(Number) });
    expect(seasonBook.seatsBooked).toBe(5_000);
    expect(seasonEventBook).toMatchObject({ seasonAndEventBookings: 0, seatsBooked: expect.any(Number) });
    expect(bestAvailable4).toMatchObject({ non2xx: 0, wrongCounts: 0, seatsBooked: 3 * 1_600 });
    const targets = report.targets.map((t: { what: string }) => t.what);
    expect(targets).toContain('double, lost or stray bookings, all scenarios');
    expect(targets).not.toContain('book2 rps / ceiling');
    expect(report.targets.find((t: { what: string }) => t.what === 'double, lost or stray bookings, all scenarios').met).toBe(true);
    // The load went to the target: it answered at least the bookings the scenarios counted.
    const bookings = ['book2', 'hotSeats', 'gaSellOut', 'seasonBook', 'seasonEventBook'].reduce((n, name) => n + report.scenarios[name].requests, 0);
    expect((await answered('POST /events/:key/actions/book')) - bookingsBefore).toBeGreaterThanOrEqual(bookings);
    // The HTML report beside the JSON, its path printed at the end.
    const html = readFileSync(join(dir, 'target.html'), 'utf8');
    for (const name of ON_A_TARGET) expect(html).toContain(`data-scenario="${name}"`);
    expect(run.stdout.trim().split('\n').at(-1)).toBe(`HTML report: ${join(dir, 'target.html')}`);

    // The run's data is marked with its run id: its workspace's name, its charts' names, its events' and seasons' keys.
    const record = JSON.parse(readFileSync(join(dir, `target-run-${runId}.json`), 'utf8'));
    const admin = { authorization: basicAuth(record.adminKey) };
    const get = async (path: string) => (await fetch(`${server.url}${path}`, { headers: admin })).json();
    expect((await get(`/workspaces/${record.workspaceKey}`)).name).toBe(runId);
    const events: { key: string }[] = (await get('/events?limit=1000')).items;
    expect(events.length).toBeGreaterThan(20);
    for (const event of events) expect(event.key.startsWith(`${runId}-`), event.key).toBe(true);
    const charts: { name: string }[] = (await get('/charts')).items;
    expect(charts).toHaveLength(4);
    for (const chart of charts) expect(chart.name.startsWith(`${runId} `), chart.name).toBe(true);
    expect((await redis.keys('*:objects')).length).toBeGreaterThan(0);

    const cleanup = await bench(['--target', server.url, '--cleanup', runId, '--output', output]);
    expect(cleanup.code, cleanup.stderr).toBe(0);
    expect(cleanup.stdout).toContain(`run ${runId} on ${server.url}: ${events.length} events and seasons deleted with their inventory, 4 charts moved to the archive`);
    expect((await get('/events?limit=1000')).items).toEqual([]);
    expect((await get('/charts')).items).toEqual([]);
    expect((await get('/charts/archive')).items).toHaveLength(4);
    // Their inventory is gone from Redis: no event's objects or history stream is left.
    expect(await redis.keys('*:objects')).toEqual([]);
    expect(await redis.keys('*:history')).toEqual([]);
    // The record is gone: a second cleanup finds nothing to do, and says so.
    expect(existsSync(join(dir, `target-run-${runId}.json`))).toBe(false);
    const again = await bench(['--target', server.url, '--cleanup', runId, '--output', output]);
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toMatch(/^no run against http:\/\/127\.0\.0\.1:\d+ with id bench-\S+ is recorded in /);
  }, 300_000);
});

describe('npm run bench -- --target with a bad target', () => {
  /** A plain HTTP server that is not this project: `answer` decides each request's status and body; it keeps what it was asked. */
  async function plainServer(answer: (method: string, path: string) => [number, unknown]): Promise<{ url: string; asked: string[]; server: Server }> {
    const asked: string[] = [];
    const server = createServer((request, response) => {
      asked.push(`${request.method} ${request.url}`);
      const [status, body] = answer(request.method!, request.url!);
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return { url: `http://127.0.0.1:${port}`, asked, server };
  }

  /** The bench against `url`: one line on stderr, exit code 1, and no report written. */
  async function refused(url: string, secret: string, expected: RegExp): Promise<void> {
    const output = join(dir, `refused-${Math.random().toString(36).slice(2)}`, 'r.json');
    const run = await bench(['--target', url, '--system-secret', secret, '--smoke', '--output', output]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr.trim()).toMatch(expected);
    expect(existsSync(output)).toBe(false);
    expect(existsSync(join(output, '..')) ? readdirSync(join(output, '..')) : []).toEqual([]);
  }

  it('nothing listening at the URL', async () => {
    await refused(`http://127.0.0.1:${await freePort()}`, 'whatever-secret', /^cannot reach http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED$/);
  });

  it('a wrong system secret: refused by the server before it makes a company', async () => {
    const before = await answered('POST /system/private/create-test-company');
    await refused(server.url, 'not-the-secret', /^http:\/\/127\.0\.0\.1:\d+ refused the system secret \(POST \/system\/private\/create-test-company answered 401\)/);
    expect(await answered('POST /system/private/create-test-company')).toBe(before + 1);
  });

  it('a server that is not this project: asked for its health alone, or for a company as well when it says it is up', async () => {
    const notFound = await plainServer(() => [404, { error: 'not found' }]);
    const up = await plainServer((method, path) => (method === 'GET' && path === '/health' ? [200, { status: 'UP' }] : [404, { message: 'no such route' }]));
    try {
      await refused(notFound.url, systemSecret, /^http:\/\/127\.0\.0\.1:\d+ does not answer as a seat inventory server: GET \/health answered 404 /);
      expect(notFound.asked).toEqual(['GET /health']);
      await refused(up.url, systemSecret, /^http:\/\/127\.0\.0\.1:\d+ does not answer as a seat inventory server: POST \/system\/private\/create-test-company answered 404 /);
      expect(up.asked).toEqual(['GET /health', 'POST /system/private/create-test-company']);
    } finally {
      notFound.server.close();
      up.server.close();
    }
  });

  it('a URL with a path, or an option for a server the bench starts', async () => {
    await refused(`${server.url}/api`, systemSecret, /give the server's origin alone/);
    const run = await bench(['--target', server.url, '--system-secret', systemSecret, '--workers', '2']);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe('--workers: this option sets up a server the bench starts, and does not apply with --target');
  });
});
