import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildObjectIndex } from '../../src/domain/objectIndex.js';
import type { SeasonScope } from '../../src/domain/season.js';
import { planChange, type ObjectInput, type StatusOperation, type StatusParameters } from '../../src/domain/statusChangeRequest.js';
import type { AtMostOnceCalls } from '../../src/inventory/atMostOnce.js';
import { eventKeys, seasonFeedKey, seasonOverridesKey, seasonUseKey, seasonVersionKey, type EventRef } from '../../src/inventory/eventKeys.js';
import { applyStatusChanges } from '../../src/inventory/statusChanges.js';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { directCall, eventInventory, outcome, type PlainWayWatch, takeGeneralWay, useWatchedStatusCalls, withNames } from '../support/statusCalls.js';


// lua/includes/plainChanges.lua also writes plain changes of the units of a season other than
// the season itself (events, partial seasons): free seats booked or held that no unit of the
// scope has a record of, booked seats released, on a season whose make-up has not changed,
// with no override in the event and no sale config to inherit. Here every step runs on twin
// seasons: one whose events take that way, and one whose top-level season has a sale config
// with a field for an object the chart does not have, which changes no rule but sends every
// call of its units the general way. Both must end with the same records, token entries,
// history, season counts, overrides, feed and answers. A third twin sends the changes the
// direct way takes (a unit other than the season, no parameter: applyPlain) as a plain call's
// positional arguments with the season's part (src/inventory/plainRequest.ts), the others as
// JSON: it must end as the first does, its calls taking the plain way alike.

const index = buildObjectIndex(rowsWithoutSections);
const OWNER = { _id: 7, companyId: 3 };
const ORIGIN = { type: 'API_CALL' as const, ip: '192.0.2.7' };
let redis: Redis;
let calls: AtMostOnceCalls;
let way: PlainWayWatch;
let nextId = 1000;
const watched = useWatchedStatusCalls('plainSeason');
beforeAll(() => ({ redis, calls, way } = watched));

type Unit = EventRef & { tableBookingConfig: { mode: 'INHERIT' } };

/** A season of two events and a partial season of the first, as the server keeps them in Redis (no MongoDB: the scopes are made here as src/domain/season.ts makes them). */
interface TwinSeason {
  top: Unit;
  events: [Unit, Unit];
  partial: Unit;
  /** The make-up version the calls are planned on. */
  planned: string;
  /** The direct way's changes sent as positional arguments (directCall), not JSON. */
  positional: boolean;
  /** Calls sent as positional arguments so far. */
  positionalCalls: number;
  scope(unit: Unit): SeasonScope<EventRef>;
}

async function newSeason(general: boolean, positional = false): Promise<TwinSeason> {
  const topId = nextId;
  nextId += 10;
  const tag = `ps${topId}`;
  const unit = (id: number, season: EventRef['season']): Unit => ({ _id: id, tag, season, usedBuckets: 4, tableBookingConfig: { mode: 'INHERIT' } });
  const top = unit(topId, { role: 'top', forSalePropagated: true });
  const events: [Unit, Unit] = [unit(topId + 1, { role: 'event', topId }), unit(topId + 2, { role: 'event', topId })];
  const partial = unit(topId + 3, { role: 'partial', topId, eventIds: [events[0]._id] });
  // A sale config field for an object no step names: no rule changes, every unit's call goes the general way.
  if (general) await takeGeneralWay(redis, top);
  const season: TwinSeason = {
    top,
    events,
    partial,
    planned: '0',
    positional,
    positionalCalls: 0,
    scope(of) {
      const version = season.planned;
      if (of === top) return { role: 'top', top, sum: [], groups: [[events[0], partial], [events[1]]], propagated: true, version };
      if (of === partial) return { role: 'partial', top, sum: [top], groups: [[events[0]]], propagated: true, version };
      return { role: 'event', top, sum: of === events[0] ? [top, partial] : [top], groups: [], propagated: true, version };
    },
  };
  return season;
}

function change(season: TwinSeason, unit: Unit, op: StatusOperation, status: string, objects: ObjectInput[], parameters: StatusParameters, now: number, tokenExpiry?: number) {
  const planned = planChange(unit, index, op, status, objects, parameters);
  const call = { event: unit, change: planned, season: season.scope(unit), tokenExpiry };
  // What the direct way takes of a season (src/services/statusChangeService.ts, applyPlain).
  if (season.positional && unit !== season.top && Object.keys(parameters).length === 0 && (op === 'book' || op === 'release' || op === 'status')) {
    season.positionalCalls++;
    return outcome(directCall(calls, call, now, ORIGIN.ip, OWNER));
  }
  return outcome(applyStatusChanges(calls, [call], now, false, ORIGIN, OWNER));
}

const unitsOf = (season: TwinSeason): [string, Unit][] => [
  ['top', season.top],
  ['event 1', season.events[0]],
  ['event 2', season.events[1]],
  ['partial', season.partial],
];

/** The units in an answer (its holding changes name them) as their roles, so twins' answers compare. */
const named = (season: TwinSeason, value: unknown) => withNames(value, unitsOf(season));

/** Everything a call can leave in a season's units and its keys. */
async function state(season: TwinSeason) {
  const units: Record<string, unknown> = {};
  for (const [name, unit] of unitsOf(season)) units[name] = { ...(await eventInventory(redis, unit)), overrides: await redis.hgetall(seasonOverridesKey(unit)) };
  // A feed entry names its unit by id (`e`): by role here.
  const feed = (await redis.xrange(seasonFeedKey(season.top), '-', '+')).map(([, fields]) =>
    fields.map((value, i) => (fields[i - 1] === 'e' ? unitsOf(season).find(([, unit]) => String(unit._id) === value)?.[0] : value)),
  );
  return { units, seasonUse: await redis.hgetall(seasonUseKey(season.top)), feed };
}

type Step = { run: (season: TwinSeason) => Promise<unknown>; unit: (season: TwinSeason) => Unit; plainWay: boolean };

describe('plain changes of the units of a season (lua/includes/plainChanges.lua) write what the general way writes', () => {
  it('books, holds, releases, the season taken, its make-up changed, overrides: the same records, counts, feed and answers', async () => {
    const plain = await newSeason(false);
    const general = await newSeason(true);
    const positional = await newSeason(false, true);
    const now = Date.now();
    const later = now + 600_000;
    const event1 = (s: TwinSeason) => s.events[0];
    const event2 = (s: TwinSeason) => s.events[1];

    const steps: Step[] = [
      // Free in every unit of its scope: plain; the season counts the records, the feed has the entries.
      { run: (s) => change(s, s.events[0], 'book', 'booked', ['A-1', 'A-2'], {}, now), unit: event1, plainWay: true },
      // Another event: its scope is the season alone, which has no record of A-1.
      { run: (s) => change(s, s.events[1], 'book', 'booked', ['A-1'], { orderId: 'o-2' }, now + 1), unit: event2, plainWay: true },
      // The season itself books the general way (it checks its units by the count).
      { run: (s) => change(s, s.top, 'book', 'booked', ['B-1'], {}, now + 2), unit: (s) => s.top, plainWay: false },
      // Taken on the season: refused by the general way; and so in the partial season.
      { run: (s) => change(s, s.events[0], 'book', 'booked', ['B-1', 'B-2'], {}, now + 3), unit: event1, plainWay: false },
      { run: (s) => change(s, s.partial, 'book', 'booked', ['A-1'], {}, now + 4), unit: (s) => s.partial, plainWay: false },
      // The partial season books what none of its scope has a record of: plain.
      { run: (s) => change(s, s.partial, 'book', 'booked', ['C-1'], {}, now + 5), unit: (s) => s.partial, plainWay: true },
      // ... which takes C-1 from event 1, whose scope names the partial season.
      { run: (s) => change(s, s.events[0], 'book', 'booked', ['C-1'], {}, now + 6), unit: event1, plainWay: false },
      // Releases: the count drops (A-1 free again in event 1), or stays for a record kept with an order id.
      { run: (s) => change(s, s.events[0], 'release', 'free', ['A-1'], {}, now + 7), unit: event1, plainWay: true },
      { run: (s) => change(s, s.events[0], 'release', 'free', ['A-2'], { orderId: 'refund' }, now + 8), unit: event1, plainWay: true },
      // A hold with a token, then booked with it.
      { run: (s) => change(s, s.events[1], 'hold', 'reservedByToken', ['D-1', 'D-2'], { holdToken: 'st1' }, now + 9, later), unit: event2, plainWay: true },
      { run: (s) => change(s, s.events[1], 'book', 'booked', ['D-1', 'D-2'], { holdToken: 'st1' }, now + 10), unit: event2, plainWay: true },
      // The season's make-up changed since the call was planned: the general way refuses it.
      {
        run: async (s) => {
          await redis.set(seasonVersionKey(s.top), '1');
          return change(s, s.events[1], 'book', 'booked', ['A-5'], {}, now + 11);
        },
        unit: event2,
        plainWay: false,
      },
      {
        run: (s) => {
          s.planned = '1';
          return change(s, s.events[1], 'book', 'booked', ['A-5'], {}, now + 12);
        },
        unit: event2,
        plainWay: true,
      },
      // An override of the season's status in event 2: every later change of event 2 goes the general way.
      { run: (s) => change(s, s.events[1], 'override', 'free', ['B-1'], {}, now + 13), unit: event2, plainWay: false },
      { run: (s) => change(s, s.events[1], 'book', 'booked', ['B-1', 'A-6'], {}, now + 14), unit: event2, plainWay: false },
      { run: (s) => change(s, s.events[1], 'release', 'free', ['A-6'], {}, now + 15), unit: event2, plainWay: false },
      // Event 1 still has none.
      { run: (s) => change(s, s.events[0], 'book', 'booked', ['A-7'], {}, now + 16), unit: event1, plainWay: true },
    ];

    for (const [i, step] of steps.entries()) {
      const before = way.position();
      const plainAnswer = await step.run(plain);
      await way.settled();
      expect(way.tookPlainWay(step.unit(plain), before), `step ${i + 1} on the plain season`).toBe(step.plainWay);
      const generalBefore = way.position();
      const generalAnswer = await step.run(general);
      await way.settled();
      expect(way.tookPlainWay(step.unit(general), generalBefore), `step ${i + 1} on the general season`).toBe(false);
      expect(named(plain, plainAnswer), `step ${i + 1}'s answer`).toEqual(named(general, generalAnswer));
      expect(await state(plain), `step ${i + 1}'s state`).toEqual(await state(general));
      const positionalBefore = way.position();
      const positionalAnswer = await step.run(positional);
      await way.settled();
      expect(way.tookPlainWay(step.unit(positional), positionalBefore), `step ${i + 1} on the positional season`).toBe(step.plainWay);
      expect(named(positional, positionalAnswer), `step ${i + 1}'s answer, positional`).toEqual(named(plain, plainAnswer));
      expect(await state(positional), `step ${i + 1}'s state, positional`).toEqual(await state(plain));
    }
    // Bookings, releases, a refusal for the season's seat, a changed make-up, the override's followers: positional.
    expect(positional.positionalCalls).toBe(11);

    // Not vacuous: the season holds what the steps did.
    const keys = (unit: Unit) => eventKeys(unit).objects;
    // Units with a record of each object: A-1 in event 2 only (released in event 1), A-2 kept
    // free with an order id, A-6 booked and released again.
    expect(await redis.hgetall(seasonUseKey(plain.top))).toEqual({ 'A-1': '1', 'A-2': '1', 'B-1': '1', 'C-1': '1', 'D-1': '1', 'D-2': '1', 'A-5': '1', 'A-7': '1' });
    expect(await redis.hget(keys(plain.events[1]), 'D-1')).toBe('booked');
    expect(await redis.hget(keys(plain.events[0]), 'A-2')).toContain('refund');
    expect((await redis.xrange(seasonFeedKey(plain.top), '-', '+')).length).toBeGreaterThan(8);
  });
});
