import { describe, expect, inject, it } from 'vitest';
import { holdTokenEventsKey, holdTokenKey } from '../../src/inventory/holdTokenKeys.js';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { action, done, expireIn, holdToken, objectInfos } from '../support/events.js';
import { expectError, isBackgroundKey } from '../support/harness.js';
import { useEventPerTest } from '../support/eventPerTest.js';
import { RedisMonitor } from '../support/redisMonitor.js';

// A hold token is usable only in its own workspace and only until it expires: every call
// that carries one (hold, book, release, change-object-status) is refused otherwise, and a
// refused call writes nothing to Redis (docs/api.md, "Hold tokens").

let event: string;
const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key));

/** Every key of this test server's namespace in the Redis the tests share. */
async function keyCount(): Promise<number> {
  const { redis } = ctx.server.app.parts;
  const prefix = redis.options.keyPrefix ?? '';
  let cursor = '0';
  let count = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    count += keys.filter((key) => !isBackgroundKey(key, prefix)).length;
  } while (cursor !== '0');
  return count;
}

async function foreignToken(): Promise<string> {
  const other = await ctx.freshCompany();
  return (await other.api.post('/hold-tokens', {})).body.holdToken as string;
}

async function expectFree(labels: string[]): Promise<void> {
  const infos = await objectInfos(ctx.api, event, labels);
  for (const label of labels) expect(infos[label]!.status, label).toBe('free');
}

describe('a refused hold writes nothing', () => {
  it('200 holds with unknown tokens leave no key behind', async () => {
    const before = await keyCount();
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => action(ctx.api, event, 'hold', { objects: ['A-1'], holdToken: `unknown-${i}` })),
    );
    for (const response of responses) expectError(response, 400, 'HOLD_TOKEN_NOT_FOUND');
    expect(await keyCount()).toBe(before);
    await expectFree(['A-1']);
  });

  it("a token of another company gains no event of this one, and neither does an expired token", async () => {
    const { redis } = ctx.server.app.parts;
    const foreign = await foreignToken();
    expectError(await action(ctx.api, event, 'hold', { objects: ['A-1'], holdToken: foreign }), 400, 'HOLD_TOKEN_NOT_FOUND');
    expect(await redis.exists(holdTokenEventsKey(foreign))).toBe(0);
    expect(await redis.exists(holdTokenKey(foreign))).toBe(1);

    const expired = await holdToken(ctx.api);
    await expireIn(ctx.api, expired, 0);
    expectError(await action(ctx.api, event, 'hold', { objects: ['A-1'], holdToken: expired }), 400, 'HOLD_TOKEN_NOT_FOUND');
    expect(await redis.exists(holdTokenEventsKey(expired))).toBe(0);
  });
});

describe('every call that carries a token needs a live token of this workspace', () => {
  const tokens: [string, () => Promise<string>][] = [
    ['an unknown token', async () => 'no-such-token'],
    ['a token of another company', foreignToken],
    [
      'an expired token',
      async () => {
        const token = await holdToken(ctx.api);
        await expireIn(ctx.api, token, 0);
        return token;
      },
    ],
  ];
  for (const [what, tokenOf] of tokens) {
    it(`booking free seats and GA places with ${what}: 400 HOLD_TOKEN_NOT_FOUND, nothing booked`, async () => {
      const token = await tokenOf();
      expectError(await action(ctx.api, event, 'book', { objects: ['A-1', { objectId: 'GA1', quantity: 2 }], holdToken: token }), 400, 'HOLD_TOKEN_NOT_FOUND');
      expectError(await action(ctx.api, event, 'change-object-status', { objects: ['A-2'], status: 'sold', holdToken: token }), 400, 'HOLD_TOKEN_NOT_FOUND');
      await expectFree(['A-1', 'A-2']);
      expect((await objectInfos(ctx.api, event, ['GA1'])).GA1).toMatchObject({ numBooked: 0 });
    });

    // Seats named by label alone take the direct way, where the status function checks a
    // booking's token by its entry in the event first (lua/includes/tokenCheck.lua).
    it(`booking free seats by label alone with ${what}: 400 HOLD_TOKEN_NOT_FOUND, nothing booked`, async () => {
      const token = await tokenOf();
      expectError(await action(ctx.api, event, 'book', { objects: ['A-1', 'A-2'], holdToken: token }), 400, 'HOLD_TOKEN_NOT_FOUND');
      await expectFree(['A-1', 'A-2']);
    });

    it(`releasing booked seats with ${what}: 400 HOLD_TOKEN_NOT_FOUND, nothing released`, async () => {
      await done(ctx.api, event, 'book', { objects: ['A-3'] });
      const token = await tokenOf();
      expectError(await action(ctx.api, event, 'release', { objects: ['A-3'], holdToken: token }), 400, 'HOLD_TOKEN_NOT_FOUND');
      expect((await objectInfos(ctx.api, event, ['A-3']))['A-3']!.status).toBe('booked');
    });
  }

  it('a token that held seats here and then expired books nothing, by label alone or not', async () => {
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'hold', { objects: ['A-5', 'A-6'], holdToken: token });
    await expireIn(ctx.api, token, 0);
    expectError(await action(ctx.api, event, 'book', { objects: ['A-5'], holdToken: token }), 400, 'HOLD_TOKEN_NOT_FOUND');
    expectError(await action(ctx.api, event, 'book', { objects: [{ objectId: 'A-6' }], holdToken: token }), 400, 'HOLD_TOKEN_NOT_FOUND');
    expect((await objectInfos(ctx.api, event, ['A-5']))['A-5']!.status).not.toBe('booked');
  });

  it('a live token that holds nothing here books free seats by label alone (checked by the server once the function asks)', async () => {
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'book', { objects: ['A-7', 'A-8'], holdToken: token });
    expect((await objectInfos(ctx.api, event, ['A-7', 'A-8']))['A-8']!.status).toBe('booked');
  });

  it("a checkout's booking of its token's holds does not read the token's record: the event's entry vouches for it", async () => {
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'hold', { objects: ['B-1'], holdToken: token });
    // The hold-expiry jobs' look at the new hold reads the token's events; it comes later on a
    // loaded machine, so it is done before the booking is watched.
    await ctx.server.app.parts.holdExpiry.flush();
    // Every node of the cluster in the cluster project: the token's key lives in its own slot.
    const isBooking = (args: string[]) => args[0]?.toLowerCase() === 'fcall' && args.some((arg) => arg.slice(1) === token);
    const commands = await RedisMonitor.commandsWhile(() => done(ctx.api, event, 'book', { objects: ['B-1'], holdToken: token }), isBooking);
    expect(commands.filter(isBooking)).toHaveLength(1);
    expect(commands.filter((args) => args.slice(1).some((arg) => arg.includes(holdTokenKey(token))))).toEqual([]);
    expect((await objectInfos(ctx.api, event, ['B-1']))['B-1']!.status).toBe('booked');
  });

  it("a checkout's hold has its token checked by the status call itself on one Redis, by the server first on a cluster", async () => {
    const token = await holdToken(ctx.api);
    const isHold = (args: string[]) => args[0]?.toLowerCase() === 'fcall' && args.some((arg) => arg.slice(1) === token);
    const namesRecord = (args: string[]) => args.slice(1).some((arg) => arg.endsWith(holdTokenKey(token)));
    // The event's first request loads it; the direct way takes the ones after.
    await done(ctx.api, event, 'book', { objects: ['B-3'] });
    const commands = await RedisMonitor.commandsWhile(() => done(ctx.api, event, 'hold', { objects: ['B-2'], holdToken: token }), isHold);
    const holds = commands.filter(isHold);
    expect(holds).toHaveLength(1);
    const scriptCallsBefore = commands.filter((args) => args[0]?.toLowerCase() === 'evalsha' && namesRecord(args));
    // On a cluster the token's record lives in its own slot: lua/hold-token-for-event-2.lua reads it first.
    const onCluster = inject('redisClusterNodes') !== '';
    expect(namesRecord(holds[0]!)).toBe(!onCluster);
    expect(scriptCallsBefore).toHaveLength(onCluster ? 1 : 0);
    expect((await objectInfos(ctx.api, event, ['B-2']))['B-2']!.status).toBe('reservedByToken');
  });

  it('a live token of this workspace still books what it holds', async () => {
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'hold', { objects: ['A-4'], holdToken: token });
    await done(ctx.api, event, 'book', { objects: ['A-4'], holdToken: token });
    expect((await objectInfos(ctx.api, event, ['A-4']))['A-4']!.status).toBe('booked');
  });
});
