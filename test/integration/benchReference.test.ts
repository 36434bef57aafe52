import type { RedisClient } from '../../src/inventory/redis.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOK_FUNCTION, LUA, RELEASE_FUNCTION, SEASON_EVENT_BOOK_FUNCTION } from '../../bench/reference/functions.js';
import { testRedis } from '../support/harness.js';

// The lean reference's Redis functions (bench/reference/functions.ts), on the tests' Redis
// (keys of this file's own): the bench divides the server's figures by what they cost, so they
// must do what their floor stands for, all or nothing, and nothing more.

let client: RedisClient;

beforeAll(async () => {
  client = testRedis();
  await client.call('FUNCTION', 'LOAD', 'REPLACE', LUA);
});

afterAll(() => client?.disconnect());

const run = `benchReference-${process.pid}-${Date.now()}`;
let calls = 0;
const objects = `ref:{${run}-e}:objects`;
const history = `ref:{${run}-e}:history`;
const record = (name: string | number) => `ref:{${run}-e}:request:${name}`;
const call = (fn: string, labels: string[], at = record(++calls)) => client.fcall(fn, 3, objects, history, at, Date.now(), 10_000, ...labels);

describe('the lean reference functions', () => {
  it('book free seats and release booked ones, all or nothing, one history entry a call; a repeated call answers as the first and changes nothing', async () => {
    expect(await call(BOOK_FUNCTION, ['A-1', 'A-2'])).toBe(1);
    expect(await client.hgetall(objects)).toEqual({ 'A-1': 'b', 'A-2': 'b' });
    // A-2 is taken: nothing of the call is written.
    expect(await call(BOOK_FUNCTION, ['A-3', 'A-2'])).toEqual([0, 'A-2']);
    expect(await client.hexists(objects, 'A-3')).toBe(0);
    // A-3 is not booked: A-1 stays booked.
    expect(await call(RELEASE_FUNCTION, ['A-1', 'A-3'])).toEqual([0, 'A-3']);
    expect(await call(RELEASE_FUNCTION, ['A-1', 'A-2'], record('release'))).toBe(1);
    expect(await client.hlen(objects)).toBe(0);
    // The same call again (its request record kept): answered 1, not refused, and nothing written.
    expect(await call(RELEASE_FUNCTION, ['A-1', 'A-2'], record('release'))).toBe(1);
    const entries = (await client.xrange(history, '-', '+')) as [string, string[]][];
    expect(entries.map(([, fields]) => fields.slice(2))).toEqual([
      ['s', 'booked', 'o', 'A-1,A-2'],
      ['s', 'free', 'o', 'A-1,A-2'],
    ]);
  });

  it('book in an event of a season only seats the season has not booked, and count them taken in the season', async () => {
    const tag = `{${run}-s}`;
    const season = `ref:${tag}:season`;
    const [eventObjects, eventHistory] = [`ref:${tag}:e1:objects`, `ref:${tag}:e1:history`];
    const inEvent = (labels: string[]) => client.fcall(SEASON_EVENT_BOOK_FUNCTION, 4, eventObjects, eventHistory, `ref:${tag}:request:${++calls}`, season, Date.now(), 10_000, ...labels);
    await client.hset(season, 'B-1', 'b');
    expect(await inEvent(['B-2', 'B-1'])).toEqual([0, 'B-1']);
    expect(await client.hlen(eventObjects)).toBe(0);
    expect(await inEvent(['B-2', 'B-3'])).toBe(1);
    expect(await client.hgetall(eventObjects)).toEqual({ 'B-2': 'b', 'B-3': 'b' });
    expect(await client.hmget(season, '#B-2', '#B-3', '#B-1')).toEqual(['1', '1', null]);
    // Booked in the event already: refused there, the season's counts unchanged.
    expect(await inEvent(['B-3'])).toEqual([0, 'B-3']);
    expect(await client.hget(season, '#B-3')).toBe('1');
    expect(await client.xlen(eventHistory)).toBe(1);
  });
});
