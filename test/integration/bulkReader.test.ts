import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors.js';
import type { ChildServer } from '../../src/embedded/childServer.js';
import { freePort } from '../../src/embedded/freePort.js';
import { startRedisServer } from '../../src/embedded/redisServer.js';
import { BulkReader } from '../../src/inventory/bulkReader.js';

// The reads of whole events for reports go through a connection of their own, decoded
// into strings without ioredis (src/inventory/bulkReader.ts). They must see exactly what
// ioredis sees, with the same password, database and key prefix, and fail as a 503.

const dir = mkdtempSync(join(tmpdir(), 'bulk-reader-'));
let server: ChildServer;
let redis: Redis;

beforeAll(async () => {
  server = await startRedisServer({ dir, appendOnly: false });
  const admin = new Redis(server.url);
  await admin.config('SET', 'requirepass', 'secret word');
  admin.disconnect();
  // A password, another database and a key prefix: what a connection is told besides where.
  redis = new Redis(`${server.url}/3`, { password: 'secret word', keyPrefix: 'app:' });
  const fields: string[] = [];
  for (let i = 0; i < 20_000; i++) fields.push(`S-${i}`, i % 3 === 0 ? `booked\u001f\u001forder é ${i}` : 'free');
  await redis.hset('objects', ...fields);
  await redis.hset('holds', 'GA1\u001ftoken', '\u001f\u001f2', 'GA2\u001ftoken', '\u001f\u001f1');
  await redis.zadd('expiry', 10, 'a', 20, 'b', 30, 'c');
});

afterAll(async () => {
  redis.disconnect();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('bulk reads', () => {
  it('answer what ioredis answers, in one transaction, with the same password, database and key prefix', async () => {
    const reader = new BulkReader(redis, 2_000);
    const replies = await reader.transaction([
      ['HKEYS', 'objects'],
      ['HVALS', 'objects'],
      ['ZRANGEBYSCORE', 'expiry', '(10', '+inf'],
      ['HGETALL', 'holds'],
      ['HKEYS', 'nothing here'],
    ]);
    const [keys, values, later, holds, none] = (await redis.multi().hkeys('objects').hvals('objects').zrangebyscore('expiry', '(10', '+inf').hgetall('holds').hkeys('nothing here').exec())!.map(([, v]) => v);
    expect(replies[0]).toEqual(keys);
    expect(replies[1]).toEqual(values);
    expect((replies[0] as string[]).length).toBe(20_000);
    expect(replies[2]).toEqual(later);
    expect(replies[3]).toEqual(Object.entries(holds as Record<string, string>).flat());
    expect(replies[4]).toEqual(none);
  });

  it('a command Redis refuses fails the read', async () => {
    await redis.set('a string', 'x');
    await expect(new BulkReader(redis, 2_000).transaction([['HKEYS', 'a string']])).rejects.toThrow(/WRONGTYPE/);
  });

  it('a wrong password fails the read', async () => {
    const wrong = new Redis(server.url, { password: 'not it', lazyConnect: true });
    await expect(new BulkReader(wrong, 2_000).transaction([['HKEYS', 'objects']])).rejects.toThrow(/WRONGPASS|invalid password/i);
  });

  it('no Redis, or one that does not answer, is a 503 within the timeout', async () => {
    const closed = new Redis(await freePort(), '127.0.0.1', { lazyConnect: true });
    const refused = await new BulkReader(closed, 2_000).transaction([['HKEYS', 'objects']]).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(503);

    // Accepts the connection and never answers.
    const silent: Server = createServer(() => undefined);
    const port = await new Promise<number>((resolve) => silent.listen(0, '127.0.0.1', () => resolve((silent.address() as { port: number }).port)));
    try {
      const mute = new Redis(port, '127.0.0.1', { lazyConnect: true });
      const started = performance.now();
      const late = await new BulkReader(mute, 300).transaction([['HKEYS', 'objects']]).catch((error: unknown) => error);
      expect(late).toBeInstanceOf(ApiError);
      expect((late as ApiError).status).toBe(503);
      expect(performance.now() - started).toBeLessThan(2_000);
    } finally {
      silent.close();
    }
  });
});
