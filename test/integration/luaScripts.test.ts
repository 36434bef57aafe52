import { once } from 'node:events';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ApiError } from '../../src/domain/errors.js';
import { buildObjectIndex } from '../../src/domain/objectIndex.js';
import { areaState, FIELD_SEPARATOR, heldByTicketType, holdMember, objectState, tokenEntryExpiry, tokenEntryLabels } from '../../src/domain/objectStates.js';
import { holdMemberOf } from '../support/events.js';
import { planChange, type ObjectInput, type StatusOperation, type StatusParameters } from '../../src/domain/statusChangeRequest.js';
import { decodeHistoryEntry } from '../../src/domain/statusChangeHistory.js';
import { byUsedBucket, monthOf } from '../../src/domain/usedBuckets.js';
import { eventKeys, requestRecordsKey, usedBucketKey, usedObjectsKey, type EventRef } from '../../src/inventory/eventKeys.js';
import { holdTokenEventsKey, holdTokenKey, holdTokenLiveKey, MAX_HOLD_TOKEN_LIFETIME_MS } from '../../src/inventory/holdTokenKeys.js';
import { HoldTokenStore } from '../../src/inventory/holdTokenStore.js';
import { AtMostOnceCalls } from '../../src/inventory/atMostOnce.js';
import { RedisClock } from '../../src/inventory/redisClock.js';
import { APPLIED, luaDir, Scripts } from '../../src/inventory/scripts.js';
import { applyStatusChanges, expireHolds } from '../../src/inventory/statusChanges.js';
import { UsedObjects } from '../../src/inventory/usedObjects.js';
import { HistoryStreams } from '../../src/inventory/historyStreams.js';
import { streamChanges } from '../support/historyStream.js';
import { generatedDrawing, rowsWithoutSections } from '../fixtures/drawings.js';

// Each Lua script called directly on a real Redis, and what it wrote read back with the
// TypeScript decoders (src/domain/objectStates.ts) and stores: the two languages share the
// stored formats (docs/redis-layout.md), and this is where a drift between them shows.

const SEP = FIELD_SEPARATOR;
const index = buildObjectIndex(rowsWithoutSections);
let redis: Redis;
let scripts: Scripts;
let clock: RedisClock;
let calls: AtMostOnceCalls;
let nextEvent = 1;

beforeAll(() => {
  // A namespace of its own on the test run's Redis, like every test server (REDIS_KEY_PREFIX).
  redis = new Redis(inject('redisUrl'), { keyPrefix: `luaScripts-${process.pid}-${Date.now()}:` });
  scripts = new Scripts(redis);
  clock = new RedisClock(redis);
  calls = new AtMostOnceCalls(scripts, redis, clock, { timeoutMs: 5_000, maxOutstanding: 100 });
});
afterAll(async () => {
  clock.stop();
  await redis.quit();
});

const newEvent = (): EventRef & { tableBookingConfig: { mode: 'INHERIT' } } => {
  const id = nextEvent++;
  return { _id: id, tag: `lua${id}`, usedBuckets: 4, tableBookingConfig: { mode: 'INHERIT' } };
};

/** The workspace and company the test events' usage counts in. */
const OWNER = { _id: 7, companyId: 3 };

/** One change through lua/change-object-status.lua, as StatusChangeService makes it. */
function change(event: ReturnType<typeof newEvent>, op: StatusOperation, status: string, objects: ObjectInput[], parameters: StatusParameters = {}, options: { now?: number; tokenExpiry?: number } = {}) {
  const planned = planChange(event, index, op, status, objects, parameters);
  return applyStatusChanges(calls, [{ event, change: planned, tokenExpiry: options.tokenExpiry }], options.now ?? Date.now(), false, { type: 'API_CALL', ip: '192.0.2.1' }, OWNER);
}

const recordOf = async (event: EventRef, label: string) => redis.hget(eventKeys(event).objects, label);

describe('change-object-status.lua writes what src/domain/objectStates.ts reads', () => {
  it('a booking with order id and ticket type', async () => {
    const event = newEvent();
    await change(event, 'book', 'booked', [{ objectId: 'A-1', ticketType: 'adult' }], { orderId: 'order-1' });
    const record = await recordOf(event, 'A-1');
    expect(record).toBe(['booked', '', 'order-1', 'adult'].join(SEP));
    expect(objectState(record, () => 0, Date.now())).toEqual({ status: 'booked', holdToken: null, orderId: 'order-1', ticketType: 'adult', resaleListingId: null });
  });

  it('a resale listing id is the sixth field', async () => {
    const event = newEvent();
    await change(event, 'status', 'resale', ['C-8'], { resaleListingId: 'listing-9' });
    const record = await recordOf(event, 'C-8');
    expect(record).toBe(['resale', '', '', '', '', 'listing-9'].join(SEP));
    expect(objectState(record, () => 0, Date.now())).toMatchObject({ status: 'resale', resaleListingId: 'listing-9' });
  });

  it('a hold carries its token, the event keeps the token expiry, and it reads as free once expired', async () => {
    const event = newEvent();
    const now = Date.now();
    const expiry = now + 60_000;
    await change(event, 'hold', 'reservedByToken', ['A-2'], { holdToken: 'tok-a' }, { now, tokenExpiry: expiry });
    const record = await recordOf(event, 'A-2');
    const entry = (await redis.hget(eventKeys(event).holdTokens, 'tok-a'))!;
    expect(entry).toBe([expiry, 'A-2'].join(SEP));
    const stored = tokenEntryExpiry(entry);
    expect(stored).toBe(expiry);
    const tokenExpiry = (token: string) => (token === 'tok-a' ? stored : 0);
    expect(objectState(record, tokenExpiry, now)).toMatchObject({ status: 'reservedByToken', holdToken: 'tok-a' });
    expect(objectState(record, tokenExpiry, expiry)).toMatchObject({ status: 'free', holdToken: null });

    // Booking one's own hold, then releasing it: free again, no record left.
    await change(event, 'book', 'booked', ['A-2'], { holdToken: 'tok-a' }, { now: now + 1 });
    expect(objectState(await recordOf(event, 'A-2'), tokenExpiry, now + 1)).toMatchObject({ status: 'booked', holdToken: null });
    await change(event, 'release', 'free', ['A-2'], {}, { now: now + 2 });
    expect(await recordOf(event, 'A-2')).toBeNull();
  });

  it('a resale object held and released returns to resale (the previous field)', async () => {
    const event = newEvent();
    const now = Date.now();
    await change(event, 'status', 'resale', ['A-3'], {}, { now });
    await change(event, 'hold', 'reservedByToken', ['A-3'], { holdToken: 'tok-r' }, { now, tokenExpiry: now + 60_000 });
    const held = await recordOf(event, 'A-3');
    expect(held!.split(SEP)).toEqual(['reservedByToken', 'tok-r', '', '', 'resale']);
    // Expired, the hold reads as what the object was before it.
    expect(objectState(held, () => now, now)).toMatchObject({ status: 'resale' });
    await change(event, 'release', 'free', ['A-3'], { holdToken: 'tok-r' }, { now: now + 1 });
    expect(objectState(await recordOf(event, 'A-3'), () => 0, now + 1)).toMatchObject({ status: 'resale' });
  });

  it('a GA hold: the area counts, the hold entry per label and token, and its expiry', async () => {
    const event = newEvent();
    const keys = eventKeys(event);
    const now = Date.now();
    const expiry = now + 60_000;
    await change(event, 'hold', 'reservedByToken', [{ objectId: 'GA1', quantity: 3, ticketType: 'adult' }], { holdToken: 'tok-g' }, { now, tokenExpiry: expiry });
    const member = holdMemberOf('GA1', 'tok-g');
    expect(holdMember(member)).toEqual({ label: 'GA1', token: 'tok-g' });
    expect(heldByTicketType(await redis.hget(keys.gaHolds, member))).toEqual(new Map([['adult', 3]]));
    expect(Number(await redis.zscore(keys.gaHoldExpiry, member))).toBe(expiry);
    expect(areaState(await recordOf(event, 'GA1'))).toMatchObject({ nonFree: 0, held: 3, status: 'reservedByToken' });

    // Booking 2 of the held places converts them; 1 stays held.
    await change(event, 'book', 'booked', [{ objectId: 'GA1', quantity: 2 }], { holdToken: 'tok-g' }, { now: now + 1 });
    expect(areaState(await recordOf(event, 'GA1'))).toMatchObject({ nonFree: 2, held: 1, status: 'booked' });
    expect(heldByTicketType(await redis.hget(keys.gaHolds, member))).toEqual(new Map([['adult', 1]]));
  });

  it('a GA booking in a channel counts the channel part of the area', async () => {
    const event = newEvent();
    const keys = eventKeys(event);
    // 5 places of GA1 assigned to channel ch1 (the field saleConfigFields writes).
    await redis.hset(keys.saleConfig, 'a:GA1', ['ch1', 5].join(SEP));
    await change(event, 'book', 'booked', [{ objectId: 'GA1', quantity: 2 }], { channelKeys: ['ch1'] });
    const record = await recordOf(event, 'GA1');
    expect(areaState(record)).toMatchObject({ nonFree: 2, held: 0, status: 'booked' });
    expect(record!.split(SEP)).toEqual(['2', '0', 'booked', 'ch1', '2', '0']);
  });

  it('objects passed to book or hold carry a usage mark in the history, which the drain counts in their bucket keys', async () => {
    const event = newEvent();
    const now = Date.now();
    const month = monthOf(now);
    const labels = ['B-1', 'B-2', 'C-5'];
    await change(event, 'book', 'booked', labels, {}, { now });
    await change(event, 'hold', 'reservedByToken', ['C-6'], { holdToken: 'token-1' }, { now, tokenExpiry: now + 60_000 });
    await change(event, 'release', 'free', ['B-1'], {}, { now });
    // The function counts nothing itself: the entries carry `u` (buckets:workspace:company), a release none.
    expect(await redis.exists(usedObjectsKey(event, month))).toBe(0);
    const entries = (await streamChanges(redis, eventKeys(event).history)).map(({ c, u }) => [c.split(SEP)[1], u]);
    expect(entries).toEqual([['B-1', '4:7:3'], ['B-2', '4:7:3'], ['C-5', '4:7:3'], ['C-6', '4:7:3'], ['B-1', null]]);

    const used = new UsedObjects(redis, scripts);
    // The batch as the drain reads it (lua/read-history-batch-1.lua): the release is not marked.
    const batch = await new HistoryStreams(redis, '').oldest(eventKeys(event).history, 1000);
    expect(batch).toMatchObject({ first: 1, last: 5, marked: 'ĀĀĀĀ.', marks: ['4:7:3'] });
    await used.countDrained(event, batch!);
    // Counted again (a batch drained twice): the same count.
    await used.countDrained(event, batch!);
    expect(await redis.hgetall(usedObjectsKey(event, month))).toEqual({ n: '4', b: '4' });
    for (const [bucket, inBucket] of byUsedBucket([...labels, 'C-6'], 4)) {
      expect((await redis.hkeys(usedBucketKey(event, month, bucket))).sort()).toEqual(inBucket.sort());
    }
    expect(await used.usedObjects(event, month)).toEqual([...labels, 'C-6']);
    expect(await used.eventsInUse(OWNER._id, month)).toEqual([event._id]);
    expect(await used.workspacesInUse(OWNER.companyId)).toEqual([OWNER._id]);
  });

  it('a seat that fails the channel rule is refused with that one error, not with the checks after it', async () => {
    const event = newEvent();
    await redis.hset(eventKeys(event).saleConfig, 'c:A-4', 'ch1');
    const error = await change(event, 'book', 'booked', ['A-4'], { channelKeys: ['ch2'], allowedPreviousStatuses: ['booked'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).errors.map((e) => e.code)).toEqual(['OBJECT_IN_CHANNEL']);
    expect(await recordOf(event, 'A-4')).toBeNull();
  });
});

describe('write-sale-config.lua replaces the sale config and records what changed for sale', () => {
  const entries = async (event: EventRef) => (await streamChanges(redis, eventKeys(event).history)).map(({ seq, c }) => decodeHistoryEntry(event._id, seq, c));

  it('appends one for-sale entry per write that changes places not for sale, none for other writes', async () => {
    const event = newEvent();
    const keys = eventKeys(event);
    expect(await scripts.writeSaleConfig(keys.saleConfig, keys.history, 1000, new Map([['c:A-1', 'ch1']]))).toBe(0);
    expect(await scripts.writeSaleConfig(keys.saleConfig, keys.history, 2000, new Map([['c:A-1', 'ch1'], ['n:A-2', '1'], ['n:GA1', '5']]))).toBe(2);
    expect(await scripts.writeSaleConfig(keys.saleConfig, keys.history, 3000, new Map([['c:A-1', 'ch2'], ['n:A-2', '1'], ['n:GA1', '5']]))).toBe(0);
    expect(await scripts.writeSaleConfig(keys.saleConfig, keys.history, 4000, new Map([['n:GA1', '7'], ['n:B-1', '1']]))).toBe(3);
    expect(await redis.hgetall(keys.saleConfig)).toEqual({ 'n:GA1': '7', 'n:B-1': '1' });
    expect(await entries(event)).toEqual([
      { eventId: event._id, id: 1, date: new Date(2000), notForSale: [['A-2', 1], ['GA1', 5]] },
      { eventId: event._id, id: 2, date: new Date(4000), notForSale: [['A-2', 0], ['B-1', 1], ['GA1', 7]] },
    ]);
    expect(await scripts.writeSaleConfig(keys.saleConfig, keys.history, 5000, new Map())).toBe(2);
    expect(await redis.exists(keys.saleConfig)).toBe(0);
    expect((await entries(event)).at(-1)).toMatchObject({ id: 3, notForSale: [['B-1', 0], ['GA1', 0]] });
  });

  it('writes a config of thousands of fields (more than one unpack takes)', async () => {
    const event = newEvent();
    const keys = eventKeys(event);
    const fields = new Map(Array.from({ length: 6_000 }, (_, i) => [`n:S-${i}`, '1'] as [string, string]));
    expect(await scripts.writeSaleConfig(keys.saleConfig, keys.history, 1000, fields)).toBe(6_000);
    expect(await redis.hlen(keys.saleConfig)).toBe(6_000);
  });
});

describe('the hold-token scripts write what HoldTokenStore reads', () => {
  it('create-hold-token-2.lua, hold-token-for-event-2.lua and change-hold-token-expiry-2.lua', async () => {
    const store = new HoldTokenStore(redis, scripts);
    const now = Date.now();
    await scripts.createHoldToken(holdTokenKey('tok-c'), holdTokenLiveKey('tok-c'), 7, now, now + 60_000, now + MAX_HOLD_TOKEN_LIFETIME_MS);
    expect(await store.get(7, 'tok-c', now)).toEqual({ token: 'tok-c', workspaceId: 7, createdAt: now, expiresAt: now + 60_000 });
    expect(await redis.pttl(holdTokenKey('tok-c'))).toBeGreaterThan(MAX_HOLD_TOKEN_LIFETIME_MS - 60_000);
    // The live key's TTL is the token's expiry.
    expect(await redis.pttl(holdTokenLiveKey('tok-c'))).toBeGreaterThan(55_000);
    expect(await redis.pttl(holdTokenLiveKey('tok-c'))).toBeLessThanOrEqual(60_000);

    // Another workspace, or past the expiry: refused, and nothing remembered.
    expect(await scripts.holdTokenForEvent(holdTokenKey('tok-c'), holdTokenEventsKey('tok-c'), 8, now, 'tag9:9', 1000)).toBe(0);
    expect(await scripts.holdTokenForEvent(holdTokenKey('tok-c'), holdTokenEventsKey('tok-c'), 7, now + 60_000, 'tag9:9', 1000)).toBe(0);
    expect(await redis.exists(holdTokenEventsKey('tok-c'))).toBe(0);
    expect(await scripts.holdTokenForEvent(holdTokenKey('tok-c'), holdTokenEventsKey('tok-c'), 7, now, 'tag9:9', 1000)).toBe(now + 60_000);
    expect(await redis.smembers(holdTokenEventsKey('tok-c'))).toEqual(['tag9:9']);

    const live = holdTokenLiveKey('tok-c');
    expect(await scripts.changeHoldTokenExpiry(holdTokenKey('tok-c'), live, 7, now, now + 120_000, MAX_HOLD_TOKEN_LIFETIME_MS, 1000)).toEqual([1, now, now + 120_000]);
    expect((await store.get(7, 'tok-c', now)).expiresAt).toBe(now + 120_000);
    expect(await redis.pttl(live)).toBeGreaterThan(115_000);
    // Beyond the maximum life: refused with the latest allowed expiry; another workspace: unknown.
    expect(await scripts.changeHoldTokenExpiry(holdTokenKey('tok-c'), live, 7, now, now + MAX_HOLD_TOKEN_LIFETIME_MS + 1, MAX_HOLD_TOKEN_LIFETIME_MS, 1000)).toEqual([-1, now + MAX_HOLD_TOKEN_LIFETIME_MS]);
    expect(await scripts.changeHoldTokenExpiry(holdTokenKey('tok-c'), live, 8, now, now + 1000, MAX_HOLD_TOKEN_LIFETIME_MS, 1000)).toEqual([0]);
    expect(await redis.pttl(live)).toBeGreaterThan(115_000);
    // Expired now: the live key goes at once.
    expect(await scripts.changeHoldTokenExpiry(holdTokenKey('tok-c'), live, 7, now, now, MAX_HOLD_TOKEN_LIFETIME_MS, 1000)).toEqual([1, now, now]);
    expect(await redis.exists(live)).toBe(0);
    expect(await store.msUntilExpiry('tok-c')).toBe(0);
  });

  it('retime-hold-token-2.lua moves a token in the event where change-object-status.lua holds with it', async () => {
    const event = newEvent();
    const keys = eventKeys(event);
    const now = Date.now();
    await change(event, 'hold', 'reservedByToken', ['A-5', { objectId: 'GA2', quantity: 1 }], { holdToken: 'tok-t' }, { now, tokenExpiry: now + 60_000 });
    expect(await scripts.retimeHoldToken(keys.holdTokens, keys.gaHoldExpiry, 'tok-t', now + 90_000)).toBe(1);
    // The new expiry, and still what the token holds here.
    const entry = (await redis.hget(keys.holdTokens, 'tok-t'))!;
    expect(tokenEntryExpiry(entry)).toBe(now + 90_000);
    expect(tokenEntryLabels(entry).sort()).toEqual(['A-5', 'GA2']);
    expect(Number(await redis.zscore(keys.gaHoldExpiry, holdMemberOf('GA2', 'tok-t')))).toBe(now + 90_000);
    const tokenExpiry = (token: string) => Number(token === 'tok-t' ? now + 90_000 : 0);
    expect(objectState(await recordOf(event, 'A-5'), tokenExpiry, now + 70_000)).toMatchObject({ status: 'reservedByToken' });
  });
});

describe('hold tokens: what each holds per event, and giving back what an expired one holds (docs/hold-expiry.md)', () => {
  const entryOf = async (event: EventRef, token: string) => redis.hget(eventKeys(event).holdTokens, token);
  /** The history entries of the event's stream: label, status, quantity, token, origin. */
  const historyOf = async (event: EventRef) =>
    (await streamChanges(redis, eventKeys(event).history)).map(({ c }) => {
      const [, label, status, quantity, , token, origin] = c.split(SEP);
      return { label, status, quantity: Number(quantity), token, origin };
    });

  it("a token's entry lists what it holds; booking and releasing take labels off, and an entry holding nothing goes", async () => {
    const event = newEvent();
    const now = Date.now();
    const held = await change(event, 'hold', 'reservedByToken', ['A-1', 'A-2', { objectId: 'GA1', quantity: 2 }], { holdToken: 'tok-e' }, { now, tokenExpiry: now + 60_000 });
    expect(held.holdings).toEqual([{ event, token: 'tok-e', holds: true }]);
    expect(tokenEntryLabels((await entryOf(event, 'tok-e'))!).sort()).toEqual(['A-1', 'A-2', 'GA1']);

    const booked = await change(event, 'book', 'booked', ['A-1'], { holdToken: 'tok-e' }, { now: now + 1 });
    expect(booked.holdings).toEqual([]);
    // A back office releases a held seat without the token: it leaves the token's entry too.
    await change(event, 'release', 'free', ['A-2'], {}, { now: now + 2 });
    expect(tokenEntryLabels((await entryOf(event, 'tok-e'))!)).toEqual(['GA1']);
    const last = await change(event, 'book', 'booked', [{ objectId: 'GA1', quantity: 2 }], { holdToken: 'tok-e' }, { now: now + 3 });
    expect(last.holdings).toEqual([{ event, token: 'tok-e', holds: false }]);
    expect(await entryOf(event, 'tok-e')).toBeNull();
    expect(await redis.exists(eventKeys(event).holdTokens)).toBe(0);
  });

  it('expire gives back seats (free or resale) and GA places once the token expired, recorded as HOLD_EXPIRED', async () => {
    const event = newEvent();
    const now = Date.now();
    await change(event, 'status', 'resale', ['B-2'], {}, { now });
    await change(event, 'book', 'booked', [{ objectId: 'GA2', quantity: 1 }], {}, { now });
    await change(event, 'hold', 'reservedByToken', ['B-1', 'B-2', { objectId: 'GA2', quantity: 3 }], { holdToken: 'tok-x', orderId: 'o-1' }, { now, tokenExpiry: now + 1_000 });
    const before = await redis.hgetall(eventKeys(event).objects);

    // Not expired yet in this event: nothing changes, and the answer says when it does.
    expect(await expireHolds(calls, event, 'tok-x', now + 999)).toEqual({ done: false, expiresAt: now + 1_000 });
    expect(await redis.hgetall(eventKeys(event).objects)).toEqual(before);

    const outcome = await expireHolds(calls, event, 'tok-x', now + 1_000);
    expect(outcome).toEqual({ done: true, holdings: [{ event, token: 'tok-x', holds: false }] });
    expect(await recordOf(event, 'B-1')).toBeNull();
    expect(await recordOf(event, 'B-2')).toBe('resale');
    expect(areaState(await recordOf(event, 'GA2'))).toMatchObject({ nonFree: 1, held: 0 });
    expect(await redis.hexists(eventKeys(event).gaHolds, holdMemberOf('GA2', 'tok-x'))).toBe(0);
    expect(await entryOf(event, 'tok-x')).toBeNull();
    const expired = (await historyOf(event)).filter((h) => h.origin === 'HOLD_EXPIRED');
    expect(expired.sort((a, b) => a.label!.localeCompare(b.label!))).toEqual([
      { label: 'B-1', status: 'free', quantity: 1, token: 'tok-x', origin: 'HOLD_EXPIRED' },
      { label: 'B-2', status: 'resale', quantity: 1, token: 'tok-x', origin: 'HOLD_EXPIRED' },
      { label: 'GA2', status: 'free', quantity: 3, token: 'tok-x', origin: 'HOLD_EXPIRED' },
    ]);
    // Again: nothing left to give back, nothing recorded twice.
    expect(await expireHolds(calls, event, 'tok-x', now + 2_000)).toEqual({ done: true, holdings: [] });
    expect((await historyOf(event)).filter((h) => h.origin === 'HOLD_EXPIRED')).toHaveLength(3);
  });

  it('a hold taken over after its token expired is recorded as HOLD_EXPIRED before the change that took it', async () => {
    const event = newEvent();
    const now = Date.now();
    await change(event, 'hold', 'reservedByToken', ['C-1', 'C-2'], { holdToken: 'tok-y' }, { now, tokenExpiry: now + 100 });
    await change(event, 'book', 'booked', ['C-1'], { orderId: 'o-2' }, { now: now + 200 });
    expect((await historyOf(event)).map((h) => [h.label, h.status, h.origin])).toEqual([
      ['C-1', 'reservedByToken', 'API_CALL'],
      ['C-2', 'reservedByToken', 'API_CALL'],
      ['C-1', 'free', 'HOLD_EXPIRED'],
      ['C-1', 'booked', 'API_CALL'],
    ]);
    // The token's entry now lists only C-2, which the expiry gives back.
    expect(tokenEntryLabels((await entryOf(event, 'tok-y'))!)).toEqual(['C-2']);
    await expireHolds(calls, event, 'tok-y', now + 300);
    expect(await recordOf(event, 'C-2')).toBeNull();
    expect(await recordOf(event, 'C-1')).toBe(['booked', '', 'o-2'].join(SEP));
  });

  it('drop-idle-hold-token-1.lua keeps an entry that holds something and drops one that holds nothing', async () => {
    const event = newEvent();
    const keys = eventKeys(event);
    const now = Date.now();
    await change(event, 'hold', 'reservedByToken', ['D-1'], { holdToken: 'tok-h' }, { now, tokenExpiry: now + 60_000 });
    // An expiry change writes a bare entry where the token holds nothing.
    await scripts.retimeHoldToken(keys.holdTokens, keys.gaHoldExpiry, 'tok-i', now + 60_000);
    expect(await scripts.dropIdleHoldToken(keys.holdTokens, 'tok-h')).toBe(1);
    expect(await scripts.dropIdleHoldToken(keys.holdTokens, 'tok-i')).toBe(0);
    expect(await entryOf(event, 'tok-i')).toBeNull();
    expect(await scripts.dropIdleHoldToken(keys.holdTokens, 'tok-none')).toBe(0);
    expect(tokenEntryLabels((await entryOf(event, 'tok-h'))!)).toEqual(['D-1']);
  });
});

describe('change-object-status.lua runs as a Redis function', () => {
  /** The names of the function libraries Redis holds (server-wide: every test's and run's). */
  const libraryNames = async () => {
    const libraries = (await redis.call('FUNCTION', 'LIST')) as unknown[][];
    return libraries.map((fields) => String(fields[fields.indexOf('library_name') + 1]));
  };

  it('is loaded again when Redis lost it (a restart without persistence), and the call goes through', async () => {
    const event = newEvent();
    const { name } = scripts.statusLibrary;
    await redis.call('FUNCTION', 'DELETE', name);
    await change(event, 'book', 'booked', ['D-7']);
    expect(await recordOf(event, 'D-7')).toBe('booked');
    expect(await libraryNames()).toContain(name);
  });

  it('is named by a hash of its source, and two versions loaded on one Redis each serve their own server', async () => {
    // Another version: a copy of lua/ whose history entries carry another origin, so the
    // entries show which version ran a call.
    const dir = mkdtempSync(join(tmpdir(), 'lua-other-version-'));
    const other = new Redis(inject('redisUrl'), { keyPrefix: redis.options.keyPrefix });
    try {
      cpSync(luaDir(), dir, { recursive: true });
      const constants = readFileSync(join(dir, 'includes', 'constants.lua'), 'utf8');
      expect(constants).toContain("local API_CALL = 'API_CALL'");
      writeFileSync(join(dir, 'includes', 'constants.lua'), constants.replace("local API_CALL = 'API_CALL'", "local API_CALL = 'OTHER_VERSION'"));
      const otherScripts = new Scripts(other, other, dir);
      const otherClock = new RedisClock(other);
      const otherCalls = new AtMostOnceCalls(otherScripts, other, otherClock, { timeoutMs: 5_000, maxOutstanding: 100 });
      try {
        const ours = scripts.statusLibrary;
        const theirs = otherScripts.statusLibrary;
        expect(ours.name).toMatch(/^seatsio_status_[0-9a-f]{12}$/);
        expect(ours.functionName).toBe(`change_object_status_${ours.version}`);
        expect(theirs.version).not.toBe(ours.version);
        // The same source gives the same name: a third server of our version shares our library.
        expect(new Scripts(redis).statusLibrary).toEqual(ours);

        const event = newEvent();
        const book = (through: AtMostOnceCalls, label: string) =>
          applyStatusChanges(through, [{ event, change: planChange(event, index, 'book', 'booked', [label], {}) }], Date.now(), false, { type: 'API_CALL' }, OWNER);
        await book(calls, 'B-1');
        await book(otherCalls, 'B-2');
        // Our version still runs after the other one was loaded (no REPLACE of a shared name).
        await book(calls, 'B-3');
        const origins = (await streamChanges(redis, eventKeys(event).history)).map(({ c }) => c.split(SEP).slice(1, 7).filter((_, i) => i === 0 || i === 5));
        expect(origins).toEqual([
          ['B-1', 'API_CALL'],
          ['B-2', 'OTHER_VERSION'],
          ['B-3', 'API_CALL'],
        ]);
        expect(await libraryNames()).toEqual(expect.arrayContaining([ours.name, theirs.name]));
      } finally {
        otherClock.stop();
      }
    } finally {
      await other.quit();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps nothing of one call for the next: a refused call leaves no error, entry or state behind', async () => {
    const event = newEvent();
    await change(event, 'book', 'booked', ['C-5']);
    const refused = await change(event, 'book', 'booked', ['C-5', 'C-6']).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    await change(event, 'book', 'booked', ['C-6']);
    const history = (await streamChanges(redis, eventKeys(event).history)).map(({ c }) => c.split(SEP)[1]);
    expect(history).toEqual(['C-5', 'C-6']);
  });
});

describe('change-object-status.lua applies a request at most once (includes/requestRecord.lua)', () => {
  /** The raw script call for booking `places` of GA1, with a given record key, call id and deadline. */
  const bookPlaces = (event: EventRef, recordKey: string, places: number, deadline: number, sentBefore = false, recordId = 'call-1', keepMs: number | '' = 5_000) => {
    const keys = eventKeys(event);
    const now = Date.now();
    const request = {
      expand: false,
      changes: [{ e: 1, op: 'book', status: 'booked', keep: false, ignoreChannels: false, objects: [{ l: 'GA1', q: places, c: 100 }] }],
    };
    const allKeys = [keys.objects, keys.extraData, keys.holdTokens, keys.saleConfig, keys.gaHoldExpiry, keys.gaHolds, keys.history, recordKey];
    return scripts.changeObjectStatus(allKeys, now, JSON.stringify(request), deadline, keepMs, sentBefore, recordId);
  };

  it('the same call sent twice books once and answers the second time as the first', async () => {
    const event = newEvent();
    const recordKey = requestRecordsKey(event, 'process-1', 1);
    const first = await bookPlaces(event, recordKey, 3, Date.now() + 10_000);
    const again = await bookPlaces(event, recordKey, 3, Date.now() + 10_000, true);
    // Applied, with nothing more to tell.
    expect(first).toBe(APPLIED);
    expect(again).toEqual(first);
    expect(areaState(await recordOf(event, 'GA1'))).toMatchObject({ nonFree: 3 });
    // The record lives a few seconds, not forever, in the hash under the call's id.
    const ttl = await redis.pttl(recordKey);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
    expect(await redis.hkeys(recordKey)).toEqual(['call-1']);
    // Another call id is another request, though its reply goes in the same hash, and so is
    // the same id in another process's or window's hash; a repeat of each answers from its own.
    await bookPlaces(event, recordKey, 3, Date.now() + 10_000, false, 'call-2');
    expect(areaState(await recordOf(event, 'GA1'))).toMatchObject({ nonFree: 6 });
    await bookPlaces(event, requestRecordsKey(event, 'process-1', 2), 3, Date.now() + 10_000);
    expect(areaState(await recordOf(event, 'GA1'))).toMatchObject({ nonFree: 9 });
    expect(await bookPlaces(event, recordKey, 3, Date.now() + 10_000, true, 'call-2')).toBe(APPLIED);
    expect(await bookPlaces(event, requestRecordsKey(event, 'process-1', 2), 3, Date.now() + 10_000, true)).toBe(APPLIED);
    expect(areaState(await recordOf(event, 'GA1'))).toMatchObject({ nonFree: 9 });
    expect(await redis.hkeys(recordKey)).toEqual(['call-1', 'call-2']);
  });

  it('only a call sent before looks for its record: a first send is applied without reading it', async () => {
    const event = newEvent();
    const recordKey = requestRecordsKey(event, 'process-1', 3);
    await bookPlaces(event, recordKey, 3, Date.now() + 10_000);
    // The server never sends a first call with a key used before (AtMostOnceCalls makes one
    // per request): sent as a first send, the record is not read and the booking applies again.
    const second = await bookPlaces(event, recordKey, 3, Date.now() + 10_000, false);
    // Applied with nothing more to tell (the event was used this month already): the reply is APPLIED.
    expect(second).toBe(APPLIED);
    expect(areaState(await recordOf(event, 'GA1'))).toMatchObject({ nonFree: 6 });
    // Its repeat finds that reply in the record and applies nothing again.
    expect(await bookPlaces(event, recordKey, 3, Date.now() + 10_000, true)).toBe(APPLIED);
    expect(areaState(await recordOf(event, 'GA1'))).toMatchObject({ nonFree: 6 });
  });

  it('a call that reaches Redis after its deadline (by Redis TIME) does nothing and says so', async () => {
    const event = newEvent();
    const recordKey = requestRecordsKey(event, 'process-1', 4);
    const [seconds] = await redis.time();
    expect(await bookPlaces(event, recordKey, 3, Number(seconds) * 1000 - 1_000)).toEqual([-1]);
    expect(await recordOf(event, 'GA1')).toBeNull();
    expect(await redis.exists(recordKey)).toBe(0);
  });

  it("a call sent with no time to keep leaves the record hash's expiry as it is", async () => {
    const event = newEvent();
    const recordKey = requestRecordsKey(event, 'process-1', 6);
    await bookPlaces(event, recordKey, 1, Date.now() + 10_000, false, 'call-1', 60_000);
    expect(await redis.pttl(recordKey)).toBeGreaterThan(50_000);
    expect(await bookPlaces(event, recordKey, 1, Date.now() + 10_000, false, 'call-2', '')).toBe(APPLIED);
    // Not set again, neither shorter nor away: the reply is kept in the hash all the same.
    expect(await redis.pttl(recordKey)).toBeGreaterThan(50_000);
    expect(await redis.hkeys(recordKey)).toEqual(['call-1', 'call-2']);
  });

  it('the server sets a record hash expiry with its first applied call, and again on a new connection (AtMostOnceCalls)', async () => {
    // A connection of its own, to be cut, and a clock that stays in one window of record hashes.
    const prefix = `recordExpiry-${process.pid}-${Date.now()}:`;
    // As the server's status connection: an unanswered command is not sent again by ioredis (src/app.ts).
    const own = new Redis(inject('redisUrl'), { keyPrefix: prefix, autoResendUnfulfilledCommands: false });
    const ownClock = new RedisClock(own);
    const fixed = Date.now();
    const frozen = Object.assign(Object.create(ownClock) as RedisClock, { now: () => fixed });
    const ownCalls = new AtMostOnceCalls(new Scripts(own), own, frozen, { timeoutMs: 5_000, maxOutstanding: 100 });
    const unprefixed = new Redis(inject('redisUrl'));
    try {
      const event = newEvent();
      const book = (labels: string[]) => applyStatusChanges(ownCalls, [{ event, change: planChange(event, index, 'book', 'booked', labels, {}) }], Date.now(), false, { type: 'API_CALL', ip: '192.0.2.1' }, OWNER);
      // The process's part of the key is its own: the hashes are found by the event's part.
      const hashes = async () => (await unprefixed.keys(`${prefix}${requestRecordsKey(event, '*', Math.floor(fixed / 100))}`)).map((key) => key.slice(prefix.length));
      await book(['A-1']);
      const [hash] = await hashes();
      expect(hash).toBeDefined();
      // Its first applied call set the expiry: the window's time to keep.
      const ttl = await own.pttl(hash!);
      expect(ttl).toBeGreaterThan(9_000);
      expect(ttl).toBeLessThanOrEqual(10_100);
      // The next calls leave it: a longer one set meanwhile stays.
      await own.pexpire(hash!, 600_000);
      await book(['A-2']);
      await book(['A-3']);
      expect(await own.pttl(hash!)).toBeGreaterThan(590_000);
      expect(await own.hlen(hash!)).toBe(3);
      // A new connection may find Redis without the hash (a restart): the next call sets it again.
      await own.del(hash!);
      const id = Number(await own.client('ID'));
      const closed = once(own, 'close');
      await redis.client('KILL', 'ID', String(id));
      await closed;
      await book(['A-4']);
      expect(await hashes()).toEqual([hash]);
      expect(await own.hkeys(hash!)).toHaveLength(1);
      expect(await own.pttl(hash!)).toBeGreaterThan(9_000);
    } finally {
      ownClock.stop();
      await own.quit();
      await unprefixed.quit();
    }
  });

  it('a failed call leaves no record: a repeat checks again', async () => {
    const event = newEvent();
    const recordKey = requestRecordsKey(event, 'process-1', 5);
    const reply = await bookPlaces(event, recordKey, 101, Date.now() + 10_000);
    expect((reply as unknown[])[0]).toBe(0);
    expect(await redis.exists(recordKey)).toBe(0);
  });
});

describe('history entries: the objects a call changes one after the other share one stream entry (includes/historyEntries.lua)', () => {
  it('numbers each change, the entry by its first, and the next entry goes on after the last', async () => {
    const event = newEvent();
    const key = eventKeys(event).history;
    await change(event, 'book', 'booked', ['A-1', 'A-2', 'A-3']);
    await change(event, 'release', 'free', ['A-2']);
    const raw = await redis.xrange(key, '-', '+');
    expect(raw.map(([id]) => id)).toEqual(['0-1', '0-4']);
    // A used entry's one field is named by its usage mark; a release's is `c`.
    expect(raw[0]![1]).toHaveLength(2);
    expect(raw[0]![1][0]).toBe('4:7:3');
    expect(raw[1]![1][0]).toBe('c');
    expect(raw[1]![1]).toHaveLength(2);
    expect((await streamChanges(redis, key)).map(({ seq, c }) => [seq, c.split(SEP)[1], c.split(SEP)[2]])).toEqual([
      [1, 'A-1', 'booked'],
      [2, 'A-2', 'booked'],
      [3, 'A-3', 'booked'],
      [4, 'A-2', 'free'],
    ]);
    // How far the stream went counts every change, trimmed or not.
    expect(await scripts.streamLastEntry(key)).toBe(4);
    await redis.xtrim(key, 'MINID', '0-5');
    await change(event, 'book', 'booked', ['A-2']);
    expect((await redis.xrange(key, '-', '+')).map(([id]) => id)).toEqual(['0-5']);
  });

  it('a change of objects the call does not use, or of another stream, starts a new entry; an entry holds at most 1,000', async () => {
    const event = newEvent();
    const key = eventKeys(event).history;
    const big = buildObjectIndex(generatedDrawing({ sections: 0, rowsPerSection: 1, seatsPerRow: 1300 }));
    const seats = big.objects.map((o) => o.label);
    const bigEvent = { ...event };
    const changes = [
      { event: bigEvent, change: planChange(bigEvent, big, 'book', 'booked', seats.slice(0, 700), {}) },
      { event: bigEvent, change: planChange(bigEvent, big, 'status', 'sold-elsewhere', seats.slice(700, 1300), {}) },
      { event: bigEvent, change: planChange(bigEvent, big, 'release', 'free', seats.slice(0, 2), {}) },
    ];
    await applyStatusChanges(calls, changes, Date.now(), false, { type: 'API_CALL', ip: '192.0.2.1' }, OWNER);
    // Book and the custom status are both used (one mark): 1,300 changes in two entries; the release has none.
    const raw = await redis.xrange(key, '-', '+');
    expect(raw.map(([id, fields]) => [id, fields[1]!.split('\u001e').length, fields[0]])).toEqual([
      ['0-1', 1000, '4:7:3'],
      ['0-1001', 300, '4:7:3'],
      ['0-1301', 2, 'c'],
    ]);
    const all = await streamChanges(redis, key);
    expect(all.map(({ seq }) => seq)).toEqual(Array.from({ length: 1302 }, (_, i) => i + 1));
    expect(all.map(({ c }) => c.split(SEP)[1])).toEqual([...seats, seats[0], seats[1]]);
  });
});

