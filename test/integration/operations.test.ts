import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildServer } from '../../src/embedded/childServer.js';
import { startRedisServer } from '../../src/embedded/redisServer.js';
import {
  call,
  client,
  createTestCompany,
  eventually,
  rawGet,
  startTestServer,
  type Response as ApiResponse,
  type TestCompany,
  type TestServer,
} from '../support/harness.js';

// The operations endpoints: liveness (/health), readiness (/ready) and Prometheus metrics
// (/metrics), all public; plus response compression, checked on /metrics.

/** Prometheus text -> map from "name{labels}" to value (one entry per sample line). */
function parseSamples(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${JSON.stringify(line)}`);
    samples.set(match[1]!, Number(match[2]));
  }
  return samples;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms))),
  ]);
}

describe('operations endpoints', () => {
  let server: TestServer;
  let company: TestCompany;

  beforeAll(async () => {
    server = await startTestServer();
    company = await createTestCompany(server.url);
  });
  afterAll(() => server.stop());

  it('GET /health answers 200 UP without authentication', async () => {
    const health = await call(server.url, 'GET', '/health');
    expect(health.status).toBe(200);
    expect(health.headers.get('content-type')).toContain('application/json');
    expect(health.body).toEqual({ status: 'UP' });
  });

  it('GET /ready answers 200 with Redis and MongoDB up', async () => {
    const ready = await call(server.url, 'GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'READY', redis: 'UP', mongodb: 'UP' });
  });

  it('GET /metrics counts requests by route and status, with a latency histogram', async () => {
    const admin = client(server.url, company.adminKey);
    for (let i = 0; i < 3; i++) expect((await admin.get('/workspaces')).status).toBe(200);
    expect((await client(server.url, company.workspace.secretKey).get('/workspaces')).status).toBe(403);
    expect((await call(server.url, 'GET', '/nope')).status).toBe(404);
    expect((await call(server.url, 'GET', '/workspaces')).status).toBe(401);

    const metrics = await call(server.url, 'GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parseSamples(metrics.text);

    const ok = 'route="GET /workspaces",status="200"';
    expect(samples.get(`http_requests_total{${ok}}`)).toBe(3);
    expect(samples.get('http_requests_total{route="GET /workspaces",status="403"}')).toBe(1);
    expect(samples.get('http_requests_total{route="GET /workspaces",status="401"}')).toBe(1);
    expect(samples.get('http_requests_total{route="unmatched",status="404"}')).toBe(1);
    expect(samples.get('http_requests_total{route="POST /system/private/create-test-company",status="200"}')).toBe(1);
    // Routes are labelled by pattern, never by raw path.
    expect(metrics.text).not.toContain('/nope');
    expect(metrics.text).toMatch(/^# TYPE http_requests_total counter$/m);
    expect(metrics.text).toMatch(/^# TYPE http_request_duration_seconds histogram$/m);

    const buckets = [...samples].filter(([name]) => name.startsWith(`http_request_duration_seconds_bucket{${ok},le=`));
    expect(buckets.length).toBeGreaterThan(2);
    expect(buckets[buckets.length - 1]![0]).toBe(`http_request_duration_seconds_bucket{${ok},le="+Inf"}`);
    const counts = buckets.map(([, value]) => value);
    for (let i = 1; i < counts.length; i++) expect(counts[i]).toBeGreaterThanOrEqual(counts[i - 1]!); // cumulative
    expect(samples.get(`http_request_duration_seconds_bucket{${ok},le="+Inf"}`)).toBe(3);
    expect(samples.get(`http_request_duration_seconds_count{${ok}}`)).toBe(3);
    const sum = samples.get(`http_request_duration_seconds_sum{${ok}}`)!;
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(10);

    expect(metrics.text).toMatch(/^# TYPE http_requests_in_flight gauge$/m);
    // The /metrics request itself is the one in flight.
    expect(samples.get('http_requests_in_flight')).toBe(1);
    expect(samples.get('process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(samples.get('process_heap_total_bytes')).toBeGreaterThanOrEqual(samples.get('process_heap_used_bytes')!);
    expect(samples.get('process_external_bytes')).toBeGreaterThan(0);

    // The next scrape includes the previous one and the counts only grow.
    const again = parseSamples((await call(server.url, 'GET', '/metrics')).text);
    expect(again.get('http_requests_total{route="GET /metrics",status="200"}')).toBe(1);
    expect(again.get(`http_requests_total{${ok}}`)).toBe(3);
  });

  it('gzips large responses only for clients that accept it', async () => {
    const gzipped = await rawGet(`${server.url}/metrics`, { 'accept-encoding': 'gzip, deflate' });
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers['content-type']).toMatch(/^text\/plain/);
    const text = gunzipSync(gzipped.body).toString('utf8');
    expect(text.length).toBeGreaterThanOrEqual(1024);
    expect(text).toContain('# TYPE http_requests_total counter');
    expect(gzipped.body.length).toBeLessThan(text.length);

    const plain = await rawGet(`${server.url}/metrics`);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThanOrEqual(1024);
    expect(plain.body.toString('utf8')).toContain('# TYPE http_requests_total counter');

    // q=0 means "not acceptable".
    const refused = await rawGet(`${server.url}/metrics`, { 'accept-encoding': 'gzip;q=0, identity' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.body.toString('utf8')).toContain('# TYPE http_requests_total counter');

    // Small responses are never compressed and do not vary.
    const small = await rawGet(`${server.url}/health`, { 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers['vary']).toBeUndefined();
    expect(JSON.parse(small.body.toString('utf8'))).toEqual({ status: 'UP' });
  });

  it('sends Vary: Accept-Encoding on both the gzipped and the plain variant of a large response', async () => {
    const plain = await rawGet(`${server.url}/metrics`);
    expect(plain.body.length).toBeGreaterThanOrEqual(1024);
    expect(plain.headers['vary']).toBe('Accept-Encoding');
    // A cache that stores this one must not hand it to clients without gzip support.
    const gzipped = await rawGet(`${server.url}/metrics`, { 'accept-encoding': 'gzip' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers['vary'], `gzipped body of ${gzipped.body.length} bytes came without Vary`).toBe('Accept-Encoding');
  });
});

describe('readiness while Redis is down', () => {
  let dir: string;
  let redis: ChildServer | undefined;
  let server: TestServer | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seatsio-ops-redis-'));
    redis = await startRedisServer({ dir, appendOnly: false });
    server = await startTestServer({ REDIS_URL: redis.url });
  });

  afterAll(async () => {
    try {
      // With Redis gone its shutdown may wait for the Redis connections: never hang the suite on it.
      if (server) await withTimeout(server.stop(), 10_000, 'server shutdown').catch(() => undefined);
    } finally {
      await redis?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('answers /ready 503 NOT_READY naming redis while /health stays 200', async () => {
    const url = server!.url;
    expect((await call(url, 'GET', '/ready')).status).toBe(200);

    await redis!.stop();

    let notReady: ApiResponse | undefined;
    await eventually(async () => {
      notReady = await call(url, 'GET', '/ready');
      return notReady.status !== 200;
    }, 8_000);
    expect(notReady!.status).toBe(503);
    expect(notReady!.body.status).toBe(503);
    expect(notReady!.body.errors[0].code).toBe('NOT_READY');
    expect(notReady!.body.errors[0].message).toMatch(/^redis: /);
    expect(notReady!.body.errors[0].message).not.toContain('mongodb');
    expect(notReady!.body.messages[0]).toBe(notReady!.body.errors[0].message);
    expect(notReady!.body.requestId).toBe(notReady!.headers.get('x-request-id'));

    // Liveness does not depend on Redis.
    const health = await call(url, 'GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'UP' });
  }, 20_000);

  it('is ready again once Redis is back', async () => {
    const url = server!.url;
    const port = Number(new URL(redis!.url).port);
    redis = await startRedisServer({ dir, appendOnly: false, port });
    await eventually(async () => (await call(url, 'GET', '/ready')).status === 200, 15_000, 100);
    const ready = await call(url, 'GET', '/ready');
    expect(ready.body).toEqual({ status: 'READY', redis: 'UP', mongodb: 'UP' });
  }, 20_000);
});
