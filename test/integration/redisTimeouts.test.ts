import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectRedis, settleStrayRejections, type RedisClient } from '../../src/inventory/redis.js';
import { testRedis } from '../support/harness.js';

// A connection with a command timeout (src/inventory/redis.ts, connectRedis) on the tests'
// Redis, held busy by a script that loops: a command nothing waits for any more times out
// without an unhandled rejection (which would end the server's process), and one that is
// awaited still fails with the timeout; a promise made from it that nobody handles is logged
// once the server's handler is in (settleStrayRejections), while any other unhandled
// rejection still ends up thrown. The redis project only (vitest.config.ts).

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

describe('a promise made from a command that times out, with nothing waiting for it', () => {
  it('is logged by the handler the server installs, and the process goes on; any other unhandled rejection is thrown again', async () => {
    const lines: string[] = [];
    settleStrayRejections(pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) }));
    const thrown: unknown[] = [];
    // A listener of this test's: it takes the rethrown rejection (vitest would report it otherwise).
    const note = (error: unknown) => thrown.push(error);
    process.on('uncaughtException', note);
    try {
      await redis.ping();
      const blocking = busy.eval(BUSY, 0);
      await new Promise((r) => setTimeout(r, 20));
      // A derived promise: settleTimeouts handles the command's own, not this one.
      void redis.get('a-derived-promise').then(() => 'never');
      void Promise.reject(new Error('not a Redis outage'));
      await blocking;
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      process.off('uncaughtException', note);
    }
    expect(lines.map((line) => JSON.parse(line) as { err: string; msg: string })).toEqual([
      expect.objectContaining({ err: 'Command timed out', msg: 'a Redis command failed after nothing waited for it any more' }),
    ]);
    expect(thrown.map((e) => (e as Error).message)).toEqual(['not a Redis outage']);
  });
});
