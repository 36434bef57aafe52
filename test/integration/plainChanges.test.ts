import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildObjectIndex } from '../../src/domain/objectIndex.js';
import { planChange, type ObjectInput, type StatusOperation, type StatusParameters } from '../../src/domain/statusChangeRequest.js';
import { eventKeys, keptEventKeys, type EventRef } from '../../src/inventory/eventKeys.js';
import type { AtMostOnceCalls } from '../../src/inventory/atMostOnce.js';
import { applyPlainChange, applyStatusChanges, checkedTokenExpiry, plainOutcome } from '../../src/inventory/statusChanges.js';
import { eventEntry, holdTokenEventsKey, holdTokenKey, holdTokenLiveKey, KEPT_FOR_MS } from '../../src/inventory/holdTokenKeys.js';
import { tokenEntryExpiry } from '../../src/domain/objectStates.js';
import { plainRequest } from '../../src/inventory/plainRequest.js';
import { TOKEN_UNCHECKED_MARK } from '../../src/inventory/statusContract.js';
import type { StatusReply } from '../../src/inventory/scripts.js';
import { directCall, eventInventory, outcome, type PlainWayWatch, takeGeneralWay, useWatchedStatusCalls, withNames } from '../support/statusCalls.js';

import { rowsWithoutSections } from '../fixtures/drawings.js';

// lua/includes/plainChanges.lua writes the plainest changes (free seats booked or held with a
// token, seats booked by the token that holds them, booked seats released, on an event without
// a sale config) without the event's state tables. Here every
// step runs on twin events: one that takes that way, and one whose sale config holds a field
// for an object the chart does not have, which changes no rule but sends every call the
// general way. Both must end with the same records, extra data, history and answers.
// MONITOR tells which way a call took (test/support/statusCalls.ts, plainWayWatch).

const index = buildObjectIndex(rowsWithoutSections);
const OWNER = { _id: 7, companyId: 3 };
const ORIGIN = { type: 'API_CALL' as const, ip: '192.0.2.1' };
let redis: Redis;
let calls: AtMostOnceCalls;
let way: PlainWayWatch;
let nextEvent = 1;
const watched = useWatchedStatusCalls('plainChanges');
beforeAll(() => ({ redis, calls, way } = watched));

type TestEvent = EventRef & { tableBookingConfig: { mode: 'INHERIT' } };
const newEvent = (): TestEvent => {
  const id = nextEvent++;
  return { _id: id, tag: `plain${id}`, usedBuckets: 4, tableBookingConfig: { mode: 'INHERIT' } };
};

/** An event that takes the general way: a sale config whose one field names no object of the chart. */
async function generalEvent(): Promise<TestEvent> {
  const event = newEvent();
  await takeGeneralWay(redis, event);
  return event;
}

function change(event: TestEvent, op: StatusOperation, status: string, objects: ObjectInput[], parameters: StatusParameters, now: number) {
  const planned = planChange(event, index, op, status, objects, parameters);
  return outcome(applyStatusChanges(calls, [{ event, change: planned }], now, false, ORIGIN, OWNER));
}

/** The direct way's call (src/inventory/plainRequest.ts writes its request); a hold names its token's expiry. */
function direct(event: TestEvent, op: StatusOperation, status: string, labels: string[], now: number, holdToken?: string, tokenExpiry?: number) {
  const planned = planChange(event, index, op, status, labels, holdToken === undefined ? {} : { holdToken });
  return outcome(directCall(calls, { event, change: planned, tokenExpiry }, now, ORIGIN.ip, OWNER));
}

/** The direct way's call of a booking that names `label` twice, past planChange's refusal. */
function twice(event: TestEvent, label: string, now: number) {
  const planned = planChange(event, index, 'book', 'booked', [label], {});
  return outcome(directCall(calls, { event, change: { ...planned, objects: [planned.objects[0]!, planned.objects[0]!] } }, now, ORIGIN.ip, OWNER));
}

/** The general call (JSON, src/inventory/statusChanges.ts statusCall) of a change with a hold token. */
function withToken(event: TestEvent, op: StatusOperation, status: string, objects: ObjectInput[], parameters: StatusParameters, now: number, tokenExpiry?: number) {
  const planned = planChange(event, index, op, status, objects, parameters);
  return outcome(applyStatusChanges(calls, [{ event, change: planned, tokenExpiry }], now, false, ORIGIN, OWNER));
}

const withoutEvent = (answer: unknown, event: EventRef) => withNames(answer, [['the event', event]]);

type Step = { run: (event: TestEvent) => Promise<unknown>; plainWay: boolean };

/** Runs each step on both twins and compares: the way the plain event's call took, the answers and what each event holds. */
async function runTwins(plain: TestEvent, general: TestEvent, steps: Step[]): Promise<void> {
  for (const [i, step] of steps.entries()) {
    const before = way.position();
    const plainAnswer = await step.run(plain);
    await way.settled();
    expect(way.tookPlainWay(plain, before), `step ${i + 1} on the plain event`).toBe(step.plainWay);
    const generalBefore = way.position();
    const generalAnswer = await step.run(general);
    await way.settled();
    expect(way.tookPlainWay(general, generalBefore), `step ${i + 1} on the general event`).toBe(false);
    expect(withoutEvent(plainAnswer, plain), `step ${i + 1}'s answer`).toEqual(withoutEvent(generalAnswer, general));
    expect(await state(plain), `step ${i + 1}'s state`).toEqual(await state(general));
  }
}

/** What a call left: records, extra data, hold tokens' entries, history (text, usage mark and number). */
const state = (event: EventRef) => eventInventory(redis, event);

describe('what a plain change asks Redis', () => {
  it('one EXISTS for the sale config and the extra data; a second, and the extra data dropped, only when one exists', async () => {
    const event = newEvent();
    const keys = eventKeys(event);
    const existsAndDrops = async (label: string) => {
      const before = way.position();
      expect(await direct(event, 'book', 'booked', [label], Date.now())).not.toHaveProperty('refused');
      await way.settled();
      return way.commandsSince(before).filter(([command, key]) => command === 'exists' ? key !== undefined && key.startsWith(keys.saleConfig) : command === 'hdel' && key === keys.extraData);
    };
    expect(await existsAndDrops('A-1')).toEqual([['exists', keys.saleConfig, keys.extraData]]);
    await redis.hset(keys.extraData, 'A-2', '{"a":1}', 'A-9', '{"b":2}');
    expect(await existsAndDrops('A-2')).toEqual([['exists', keys.saleConfig, keys.extraData], ['exists', keys.saleConfig], ['hdel', keys.extraData, 'A-2']]);
    expect(await redis.hgetall(keys.extraData)).toEqual({ 'A-9': '{"b":2}' });
  });
});

describe('plain changes (lua/includes/plainChanges.lua) write what the general way writes', () => {
  it('books, releases, order ids, resale, extra data, refusals and holds: the same records, history and answers', async () => {
    const plain = newEvent();
    const general = await generalEvent();
    const now = Date.now();
    // Extra data an object has without a record (a booking drops it, as it drops any it does not keep).
    for (const event of [plain, general]) await redis.hset(eventKeys(event).extraData, 'A-5', '{"note":"kept?"}');

    const steps: Step[] = [
      { run: (e) => change(e, 'book', 'booked', ['A-1', 'A-2'], {}, now), plainWay: true },
      { run: (e) => change(e, 'book', 'booked', ['A-3'], { orderId: 'order-1' }, now + 1), plainWay: true },
      { run: (e) => direct(e, 'book', 'booked', ['A-4', 'A-5'], now + 2), plainWay: true },
      { run: (e) => change(e, 'release', 'free', ['A-1'], {}, now + 3), plainWay: true },
      // A release with an order id keeps it on the now free seat.
      { run: (e) => change(e, 'release', 'free', ['A-3'], { orderId: 'refund-1' }, now + 4), plainWay: true },
      // A record where a booking needs none: the general way words the refusal.
      { run: (e) => change(e, 'book', 'booked', ['A-2', 'A-6'], {}, now + 5), plainWay: false },
      // Releasing a free seat is refused by the general way too.
      { run: (e) => change(e, 'release', 'free', ['A-7'], {}, now + 6), plainWay: false },
      // Resale, then booked (the record is resale: general), then released back to resale (plain).
      { run: (e) => change(e, 'status', 'resale', ['B-1'], {}, now + 7), plainWay: false },
      { run: (e) => change(e, 'book', 'booked', ['B-1'], {}, now + 8), plainWay: false },
      { run: (e) => direct(e, 'release', 'free', ['B-1'], now + 9), plainWay: true },
      // A custom status is released as a booking is.
      { run: (e) => change(e, 'status', 'lost', ['B-2'], {}, now + 10), plainWay: false },
      { run: (e) => change(e, 'release', 'free', ['B-2'], {}, now + 11), plainWay: true },
      // A hold (with its token's expiry: plain, as below), then released without the token: general.
      { run: (e) => withToken(e, 'hold', 'reservedByToken', ['B-3'], { holdToken: 'token-1' }, now + 12, now + 60_000), plainWay: true },
      { run: (e) => change(e, 'release', 'free', ['B-3'], {}, now + 13), plainWay: false },
      // Extra data asked for, or a ticket type: general.
      { run: (e) => change(e, 'book', 'booked', [{ objectId: 'B-4', extraData: { a: 1 } }], {}, now + 14), plainWay: false },
      { run: (e) => change(e, 'book', 'booked', [{ objectId: 'B-5', ticketType: 'adult' }], {}, now + 15), plainWay: false },
      { run: (e) => change(e, 'release', 'free', ['B-4', 'B-5'], {}, now + 16), plainWay: true },
      { run: (e) => change(e, 'book', 'booked', ['B-6'], { keepExtraData: true }, now + 17), plainWay: false },
      // A seat named twice (the server refuses it before any call; the function does not rely
      // on that): general, which checks the second against the first.
      { run: (e) => twice(e, 'B-7', now + 18), plainWay: false },
    ];

    await runTwins(plain, general, steps);
    // Not vacuous: the events hold what the steps did.
    const { records, extraData, history } = await state(plain);
    expect(records['A-2']).toBe('booked');
    expect(records['A-3']).toContain('refund-1');
    expect(records['B-1']).toBe('resale');
    expect(extraData['A-5']).toBeUndefined();
    expect(history.filter((entry) => entry.u !== null).length).toBeGreaterThan(5);
  });
});

describe('holds and bookings by a hold token the plain way write what the general way writes', () => {
  it("holds, its own holds booked, other tokens', expired tokens, order ids, resale and releases: the same records, token entries, history and answers", async () => {
    const plain = newEvent();
    const general = await generalEvent();
    const now = Date.now();
    const later = now + 600_000;
    const hold = 'reservedByToken';

    const steps: Step[] = [
      // A token's first hold in the event: it starts holding (the answer says so).
      { run: (e) => direct(e, 'hold', hold, ['A-1', 'A-2'], now, 't1', later), plainWay: true },
      // More seats for the same token, by JSON: no start to tell.
      { run: (e) => withToken(e, 'hold', hold, ['A-3'], { holdToken: 't1' }, now + 1, later), plainWay: true },
      // Part of what it holds booked: it still holds.
      { run: (e) => direct(e, 'book', 'booked', ['A-1'], now + 2, 't1'), plainWay: true },
      // The rest, with a free seat besides: it stops holding (the answer says so, its entry goes).
      { run: (e) => withToken(e, 'book', 'booked', ['A-2', 'A-3', 'A-4'], { holdToken: 't1' }, now + 3), plainWay: true },
      { run: (e) => direct(e, 'hold', hold, ['A-5'], now + 4, 't2', later), plainWay: true },
      // Another token's hold: refused, by the general way.
      { run: (e) => direct(e, 'book', 'booked', ['A-5'], now + 5, 't1'), plainWay: false },
      { run: (e) => direct(e, 'hold', hold, ['A-5', 'A-6'], now + 6, 't1', later), plainWay: false },
      // A booked seat cannot be held.
      { run: (e) => direct(e, 'hold', hold, ['A-1'], now + 7, 't2', later), plainWay: false },
      // A token that expires at now + 20: its hold is plain, a booking after it is not (the
      // general way books the seat and notes the hold's end as HOLD_EXPIRED).
      { run: (e) => direct(e, 'hold', hold, ['B-1', 'B-2'], now + 8, 't3', now + 20), plainWay: true },
      { run: (e) => direct(e, 'book', 'booked', ['B-1'], now + 30, 't3'), plainWay: false },
      // Holding with the expired token: refused.
      { run: (e) => direct(e, 'hold', hold, ['B-3'], now + 40, 't3', now + 20), plainWay: false },
      // A hold with an order id keeps it; booking that hold is the general way's.
      { run: (e) => withToken(e, 'hold', hold, ['B-4'], { holdToken: 't4', orderId: 'order-4' }, now + 50, later), plainWay: true },
      { run: (e) => direct(e, 'book', 'booked', ['B-4'], now + 51, 't4'), plainWay: false },
      // Released by its token: the general way (a release by a token gives back its own holds only).
      { run: (e) => direct(e, 'release', 'free', ['A-5'], now + 52, 't2'), plainWay: false },
      // A booking with a token the event has no entry for, of free seats: plain, the token in the history.
      { run: (e) => direct(e, 'book', 'booked', ['C-1', 'C-2'], now + 53, 't5'), plainWay: true },
      // Resale is held the general way (the hold remembers it), then booked the general way.
      { run: (e) => change(e, 'status', 'resale', ['C-3'], {}, now + 54), plainWay: false },
      { run: (e) => direct(e, 'hold', hold, ['C-3'], now + 55, 't6', later), plainWay: false },
      { run: (e) => direct(e, 'book', 'booked', ['C-3'], now + 56, 't6'), plainWay: false },
      // A hold of a status other than the held one is the general way's to word.
      { run: (e) => direct(e, 'hold', 'other', ['C-4'], now + 57, 't6', later), plainWay: false },
    ];
    await runTwins(plain, general, steps);

    // Not vacuous: the events hold what the steps did.
    const { records, holdTokens, history } = await state(plain);
    expect(records['A-3']).toBe('booked');
    expect(records['A-5']).toBeUndefined();
    expect(records['B-2']).toContain('t3');
    expect(records['B-4']).toBe('booked');
    // Only the expired token still has an entry (for B-2, which nothing has given back yet).
    expect(Object.keys(holdTokens)).toEqual(['t3']);
    expect(history.some((entry) => entry.c.includes('HOLD_EXPIRED'))).toBe(true);
    expect(history.filter((entry) => entry.c.includes('\u001ft5\u001f'))).toHaveLength(2);
    // A first hold's answer tells of the start.
    const first = await direct(newEvent(), 'hold', hold, ['D-1'], now, 't7', later);
    expect(first).toMatchObject({ holdings: [{ token: 't7', holds: true }] });
  });
});

describe("a booking's token left to the status function (lua/includes/tokenCheck.lua)", () => {
  /** A direct call whose booking's token the server did not check: the function's reply as it is. */
  function unchecked(event: TestEvent, labels: string[], now: number, holdToken: string): Promise<StatusReply> {
    const planned = planChange(event, index, 'book', 'booked', labels, { holdToken });
    return new Promise((resolve, reject) =>
      calls.call(event, keptEventKeys(event), now, plainRequest(planned, undefined, TOKEN_UNCHECKED_MARK, '', ORIGIN.ip, undefined), { resolve, reject }),
    );
  }
  const UNCHECKED = [0, ['HOLD_TOKEN_UNCHECKED', '', '']];

  /** How many request records (replies kept for repeats, src/inventory/atMostOnce.ts) the event's calls left. */
  async function requestRecords(event: TestEvent): Promise<number> {
    const prefix = redis.options.keyPrefix ?? '';
    let count = 0;
    for (const key of await redis.keys(`${prefix}inv:{${event.tag}}:requests:*`)) count += await redis.hlen(key.slice(prefix.length));
    return count;
  }

  it('books with a token the event has an unexpired entry for, either way; any other token is answered unchecked, with nothing written', async () => {
    for (const event of [newEvent(), await generalEvent()]) {
      const now = Date.now();
      await direct(event, 'hold', 'reservedByToken', ['A-1', 'A-2'], now, 't1', now + 600_000);
      await direct(event, 'hold', 'reservedByToken', ['B-1'], now, 't2', now + 20);

      // The entry of t1 vouches for it: its holds are booked, and so is a free seat with them.
      expect(await unchecked(event, ['A-1', 'A-3'], now + 1, 't1')).not.toEqual(UNCHECKED);
      // No entry (a token that never held here), or an expired one: nothing is written, not even the request's record.
      const before = await state(event);
      const recordsBefore = await requestRecords(event);
      expect(recordsBefore).toBeGreaterThan(0);
      expect(await unchecked(event, ['C-1'], now + 2, 't9')).toEqual(UNCHECKED);
      expect(await unchecked(event, ['B-1'], now + 30, 't2')).toEqual(UNCHECKED);
      expect(await state(event)).toEqual(before);
      expect(await requestRecords(event)).toBe(recordsBefore);

      const { records: after, holdTokens } = await state(event);
      expect([after['A-1'], after['A-2'], after['A-3'], after['C-1']]).toEqual(['booked', expect.stringContaining('t1'), 'booked', undefined]);
      expect(Object.keys(holdTokens).sort()).toEqual(['t1', 't2']);
    }
  });
});

describe("a hold's token left to the status function on one Redis (lua/includes/tokenCheck.lua)", () => {
  const HELD = 'reservedByToken';
  const REFUSED = [0, ['HOLD_TOKEN_REFUSED', '', '']];

  /** A token's record as POST /hold-tokens writes it (lua/create-hold-token-2.lua). */
  async function newToken(token: string, workspaceId: number, expiresAt: number): Promise<void> {
    await calls.scripts.createHoldToken(holdTokenKey(token), holdTokenLiveKey(token), workspaceId, Date.now(), expiresAt, Date.now() + KEPT_FOR_MS);
  }

  /** The direct way's hold whose token the function checks (TOKEN_TO_CHECK_MARK): its reply as it is. */
  function holdToCheck(event: TestEvent, labels: string[], now: number, holdToken: string): Promise<StatusReply> {
    const planned = planChange(event, index, 'hold', HELD, labels, { holdToken });
    return new Promise((resolve, reject) => applyPlainChange(calls, { event, change: planned, tokenCheckedBy: 'record' }, now, ORIGIN.ip, OWNER, { resolve, reject }));
  }

  /** The same hold as the server made it before: the token checked by lua/hold-token-for-event-2.lua, then the call with its expiry. */
  async function holdCheckedFirst(event: TestEvent, labels: string[], now: number, holdToken: string) {
    const expiry = await calls.scripts.holdTokenForEvent(holdTokenKey(holdToken), holdTokenEventsKey(holdToken), OWNER._id, now, eventEntry(event), KEPT_FOR_MS);
    return direct(event, 'hold', HELD, labels, now, holdToken, expiry);
  }

  const eventsOf = (token: string) => redis.smembers(holdTokenEventsKey(token));

  it('holds as the server did after checking the token itself, the plain way and the general way alike, and answers the token\'s expiry', async () => {
    const now = Date.now();
    const expiresAt = now + 600_000;
    await newToken('c1', OWNER._id, expiresAt);
    await newToken('c2', OWNER._id, expiresAt);
    const heldIn: TestEvent[] = [];
    for (const [checkedHere, checkedFirst] of [
      [newEvent(), newEvent()],
      [await generalEvent(), await generalEvent()],
    ] as const) {
      heldIn.push(checkedHere);
      const reply = await holdToCheck(checkedHere, ['A-1', 'A-2'], now, 'c1');
      const before = await holdCheckedFirst(checkedFirst, ['A-1', 'A-2'], now, 'c2');
      // The answer the server reads: the token started holding, and its expiry.
      expect(checkedTokenExpiry(reply)).toBe(expiresAt);
      // The same answer, records, token entry (its expiry the token's) and history, the token's name aside.
      const rename = (inventory: unknown) => JSON.parse(JSON.stringify(inventory).replaceAll('c2', 'c1'));
      expect(withoutEvent(plainOutcome(reply, { event: checkedHere }), checkedHere)).toEqual(rename(withoutEvent(before, checkedFirst)));
      expect(await state(checkedHere)).toEqual(rename(await state(checkedFirst)));
      expect(tokenEntryExpiry((await state(checkedHere)).holdTokens.c1!)).toBe(expiresAt);
    }
    // Each event joined its token's events set, so an expiry change reaches it; kept as long as the server keeps it.
    expect((await eventsOf('c1')).sort()).toEqual(heldIn.map(eventEntry).sort());
    expect(await redis.pttl(holdTokenEventsKey('c1'))).toBeGreaterThan(KEPT_FOR_MS - 60_000);
    // A second hold with the token in the event: its entry's expiry stands, the event is listed once.
    expect(checkedTokenExpiry(await holdToCheck(newEvent(), ['B-1'], now, 'c1'))).toBe(expiresAt);
  });

  it('refuses an unknown, expired or other workspace\'s token with nothing written: no record, no request record, no event in its set', async () => {
    const now = Date.now();
    await newToken('r-expired', OWNER._id, now - 1);
    await newToken('r-other', OWNER._id + 1, now + 600_000);
    for (const event of [newEvent(), await generalEvent()]) {
      const before = await state(event);
      for (const token of ['r-unknown', 'r-expired', 'r-other']) {
        expect(await holdToCheck(event, ['A-1'], now, token), token).toEqual(REFUSED);
        expect(await eventsOf(token), token).toEqual([]);
      }
      expect(await state(event)).toEqual(before);
      const prefix = redis.options.keyPrefix ?? '';
      expect(await redis.keys(`${prefix}inv:{${event.tag}}:requests:*`)).toEqual([]);
    }
    // Not a hold on the token's record: nothing was created for the unknown one.
    expect(await redis.exists(holdTokenKey('r-unknown'))).toBe(0);
  });
});
