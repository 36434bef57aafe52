import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectRedis, type RedisClient } from '../../src/inventory/redis.js';
import { testRedis } from '../support/harness.js';

// A connection with a command timeout (src/inventory/redis.ts, connectRedis) on the tests'
// Redis, held busy by a script that loops: a command nothing waits for any more times out
// without an unhandled rejection (which would end the server's process), and one that is
// awaited still fails with the timeout. The redis project only (vitest.config.ts).

const TIMEOUT_MS = 100;
/** Long enough for the timeout to pass, short of Redis's busy-script limit (5 s). */
const BUSY_MS = 400;
const BUSY = `local t = redis.call('TIME') local until_us = t[1] * 1000000 + t[2] + ${BUSY_MS * 1000}
while true do local n = redis.call('TIME') if n[1] * 1000000 + n[2] >= until_us then return 1 end end`;

let redis: RedisClient;
let busy: RedisClient;

beforeAll(() => {
  redis = connectRedis({ url: inject('redisUrl') }, 'test-timeouts', pino({ level: 'silent' }), { timeoutMs: TIMEOUT_MS });
  busy = testRedis();
});

afterAll(() => {
  redis?.disconnect();
  busy?.disconnect();
});

describe('a command that times out', () => {
  it('with nothing waiting for it, is no unhandled rejection; one awaited fails with the timeout', async () => {
    await redis.ping();
    const unhandled: unknown[] = [];
    const note = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', note);
    try {
      const blocking = busy.eval(BUSY, 0);
      // Sent once the script runs, so they wait behind it.
      await new Promise((r) => setTimeout(r, 20));
      void redis.get('nothing-waits-for-this');
      void redis.call('GET', 'nor-for-this');
      const awaited = redis.get('this-one-is-awaited').then(
        () => 'answered',
        (error: Error) => error.message,
      );
      expect(await awaited).toBe('Command timed out');
      await blocking;
      // Rejections are reported after the microtasks of their turn.
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      process.off('unhandledRejection', note);
    }
    expect(unhandled).toEqual([]);
  });
});
