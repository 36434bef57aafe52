import { beforeAll, describe, expect, it } from 'vitest';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { action, codes, done, eventPath, expireIn, holdToken, objectInfo, statuses } from '../support/events.js';
import { redisKeysOf, storedEvent } from '../support/eventAdmin.js';
import { seasonUseKey, seasonVersionKey } from '../../src/inventory/eventKeys.js';
import { createCompanyClients, expectError, useServerWithCompany } from '../support/harness.js';
import { createSeason, eventKeysOf } from '../support/seasons.js';
import { thisMonth, usageCounted } from '../support/usage.js';

// The season rules (docs/seasons.md, "Rules"), each on a season of its own on real
// servers: what one unit of a season books, holds back or assigns is seen by the others
// in the same script call that changes it.

const ctx = useServerWithCompany();
let chartKey: string;

beforeAll(async () => {
  chartKey = (await uploadDrawing(ctx.api, rowsWithoutSections)).key;
});

/** A season with `events` events: its key and its events' keys. */
async function season(events = 2, body: Record<string, unknown> = {}): Promise<{ key: string; events: string[] }> {
  const record = await createSeason(ctx.api, chartKey, { numberOfEvents: events, ...body });
  return { key: record.key, events: eventKeysOf(record) };
}

const book = (event: string, objects: unknown[], extra: Record<string, unknown> = {}) => action(ctx.api, event, 'book', { objects, ...extra });
const past = async (event: string) => expect((await ctx.api.post(eventPath(event), { isInThePast: true })).status).toBe(200);

describe('seats booked on the season or in its events', () => {
  it('a seat booked on the season is unavailable in every event, and object info there shows it booked', async () => {
    const s = await season(3);
    await done(ctx.api, s.key, 'book', { objects: ['A-1'], orderId: 'season-ticket' });
    for (const event of s.events) {
      expectError(await book(event, ['A-1']), 400, 'OBJECT_TAKEN_IN_SEASON');
      const info = await objectInfo(ctx.api, event, 'A-1');
      expect(info).toMatchObject({ status: 'booked', orderId: 'season-ticket', isAvailable: false });
    }
    // The other seats are untouched.
    await done(ctx.api, s.events[0]!, 'book', { objects: ['A-2'] });
  });

  it('a seat booked in one event cannot be booked on the season (400) until every such event is in the past', async () => {
    const s = await season(3);
    await done(ctx.api, s.events[0]!, 'book', { objects: ['A-1'] });
    await done(ctx.api, s.events[1]!, 'book', { objects: ['A-1'] });
    const refused = await book(s.key, ['A-1', 'A-2']);
    expectError(refused, 400, 'OBJECT_TAKEN_IN_SEASON');
    expect((await statuses(ctx.api, s.key, ['A-1', 'A-2']))).toEqual({ 'A-1': 'free', 'A-2': 'free' });
    await past(s.events[0]!);
    expectError(await book(s.key, ['A-1']), 400, 'OBJECT_TAKEN_IN_SEASON');
    await past(s.events[1]!);
    await done(ctx.api, s.key, 'book', { objects: ['A-1'] });
    // The third event, not in the past, now sees the season's booking.
    expectError(await book(s.events[2]!, ['A-1']), 400, 'OBJECT_TAKEN_IN_SEASON');
  });

  it('a hold in an event takes the seat from the season until its token expires', async () => {
    const s = await season(2);
    const token = await holdToken(ctx.api);
    await done(ctx.api, s.events[0]!, 'hold', { objects: ['A-5'], holdToken: token });
    expectError(await book(s.key, ['A-5']), 400, 'OBJECT_TAKEN_IN_SEASON');
    await expireIn(ctx.api, token, 0);
    await done(ctx.api, s.key, 'book', { objects: ['A-5'] });
    expectError(await book(s.events[0]!, ['A-5']), 400, 'OBJECT_TAKEN_IN_SEASON');
  });

  it('a release in the event gives the seat back to the season', async () => {
    const s = await season(2);
    await done(ctx.api, s.events[1]!, 'book', { objects: ['B-1'] });
    expectError(await book(s.key, ['B-1']), 400, 'OBJECT_TAKEN_IN_SEASON');
    await done(ctx.api, s.events[1]!, 'release', { objects: ['B-1'] });
    await done(ctx.api, s.key, 'book', { objects: ['B-1'] });
  });

  it('one batch that books a seat in an event and then on the season is refused whole', async () => {
    const s = await season(2);
    const response = await ctx.api.post('/events/actions/change-object-status', {
      statusChanges: [
        { event: s.events[0], objects: ['C-1'], status: 'booked' },
        { event: s.key, objects: ['C-1'], status: 'booked' },
      ],
    });
    expectError(response, 400, 'OBJECT_TAKEN_IN_SEASON');
    expect(await statuses(ctx.api, s.events[0]!, ['C-1'])).toEqual({ 'C-1': 'free' });
  });

  it('concurrent bookings of one seat on the season and in each of its events: exactly one wins', async () => {
    const s = await season(4);
    for (const label of ['D-1', 'D-2', 'D-3']) {
      const units = [s.key, ...s.events];
      const answers = await Promise.all(units.map((unit) => book(unit, [label])));
      const won = answers.filter((r) => r.status === 204);
      const seasonWon = answers[0]!.status === 204;
      // Either the season got it (and no event), or events got it (any number of them, never with the season).
      if (seasonWon) expect(won).toHaveLength(1);
      else expect(won.length).toBeGreaterThanOrEqual(1);
      for (const refused of answers.filter((r) => r.status !== 204)) expect(codes(refused)).toEqual(['OBJECT_TAKEN_IN_SEASON']);
    }
  });
});

describe("the season's count of stored records", () => {
  it('counts the units holding a record of a seat; an event marked as past or deleted leaves the count, once', async () => {
    const s = await season(3);
    const top = await storedEvent(ctx.server, ctx.company.workspace.id, s.key);
    const count = async (label: string) => Number((await ctx.server.app.parts.redis.hget(seasonUseKey(top), label)) ?? 0);
    for (const event of s.events) await done(ctx.api, event, 'book', { objects: ['D-7'] });
    await done(ctx.api, s.events[0]!, 'book', { objects: ['D-8'] });
    expect([await count('D-7'), await count('D-8')]).toEqual([3, 1]);
    await done(ctx.api, s.events[2]!, 'release', { objects: ['D-7'] });
    expect(await count('D-7')).toBe(2);
    await past(s.events[0]!);
    expect([await count('D-7'), await count('D-8')]).toEqual([1, 0]);
    expect((await ctx.api.delete(eventPath(s.events[1]!))).status).toBe(204);
    expect(await count('D-7')).toBe(0);
    // With no unit holding it, the season books it on the fast path.
    await done(ctx.api, s.key, 'book', { objects: ['D-7', 'D-8'] });
    expectError(await book(s.events[2]!, ['D-7']), 400, 'OBJECT_TAKEN_IN_SEASON');
  });
});

describe('general admission in a season', () => {
  it('places booked on the season reduce every event; the season has capacity minus the most booked in one event', async () => {
    const s = await season(2);
    await done(ctx.api, s.events[0]!, 'book', { objects: [{ objectId: 'GA1', quantity: 50 }] });
    await done(ctx.api, s.events[1]!, 'book', { objects: [{ objectId: 'GA1', quantity: 20 }] });
    expectError(await book(s.key, [{ objectId: 'GA1', quantity: 51 }]), 400, 'NOT_ENOUGH_FREE_PLACES');
    await done(ctx.api, s.key, 'book', { objects: [{ objectId: 'GA1', quantity: 30 }] });
    // Event 2: 100 - 20 own - 30 season = 50 left; event 1: 100 - 50 - 30 = 20.
    expectError(await book(s.events[1]!, [{ objectId: 'GA1', quantity: 51 }]), 400, 'NOT_ENOUGH_FREE_PLACES');
    await done(ctx.api, s.events[1]!, 'book', { objects: [{ objectId: 'GA1', quantity: 50 }] });
    expectError(await book(s.events[0]!, [{ objectId: 'GA1', quantity: 21 }]), 400, 'NOT_ENOUGH_FREE_PLACES');
    await done(ctx.api, s.events[0]!, 'book', { objects: [{ objectId: 'GA1', quantity: 20 }] });
    // Now both events are full: the season has nothing left.
    expectError(await book(s.key, [{ objectId: 'GA1', quantity: 1 }]), 400, 'NOT_ENOUGH_FREE_PLACES');
    // Object info counts the same way: own places booked, and free what the season left.
    expect(await objectInfo(ctx.api, s.events[1]!, 'GA1')).toMatchObject({ numBooked: 70, numFree: 0, isAvailable: false });
    expect(await objectInfo(ctx.api, s.key, 'GA1')).toMatchObject({ numBooked: 30, numFree: 0 });
    await done(ctx.api, s.events[1]!, 'release', { objects: [{ objectId: 'GA1', quantity: 5 }] });
    expect(await objectInfo(ctx.api, s.events[1]!, 'GA1')).toMatchObject({ numBooked: 65, numFree: 5, isAvailable: true });
    // Event 1 still has 70 + 30 of 100: the season has nothing left.
    expect((await objectInfo(ctx.api, s.key, 'GA1')).numFree).toBe(0);
  });
});

describe('for sale and channels', () => {
  it('not for sale on the season closes every event; mark-as-for-sale on a season is refused', async () => {
    const s = await season(2);
    expect((await ctx.api.post(eventPath(s.key, '/actions/mark-as-not-for-sale'), { objects: ['A-1'] })).status).toBe(200);
    for (const event of s.events) expectError(await book(event, ['A-1']), 400, 'OBJECT_NOT_FOR_SALE');
    expect((await objectInfo(ctx.api, s.events[0]!, 'A-1')).forSale).toBe(false);
    expectError(await ctx.api.post(eventPath(s.key, '/actions/mark-as-for-sale'), { objects: ['A-1'] }), 400, 'NOT_SUPPORTED_FOR_SEASONS');
  });

  it("not for sale on the season closes an event with a for-sale config of its own too, and object info and the by-label report say so", async () => {
    const s = await season(2);
    expect((await ctx.api.post(eventPath(s.key, '/actions/mark-as-not-for-sale'), { objects: ['A-1'] })).status).toBe(200);
    expect((await ctx.api.post(eventPath(s.events[0]!, '/actions/mark-as-not-for-sale'), { objects: ['A-2'] })).status).toBe(200);
    for (const label of ['A-1', 'A-2']) {
      expectError(await book(s.events[0]!, [label]), 400, 'OBJECT_NOT_FOR_SALE');
      expect(await objectInfo(ctx.api, s.events[0]!, label)).toMatchObject({ forSale: false, isAvailable: false, availabilityReason: 'not_for_sale' });
    }
    expect(await objectInfo(ctx.api, s.events[0]!, 'A-3')).toMatchObject({ forSale: true, isAvailable: true });
    const report = await ctx.api.get(`/reports/events/${encodeURIComponent(s.events[0]!)}/byLabel`);
    expect(report.body['A-1'][0]).toMatchObject({ forSale: false, isAvailable: false });
    // Without propagation the event's own config alone counts.
    const s2 = await season(1, { forSalePropagated: false });
    await ctx.api.post(eventPath(s2.key, '/actions/mark-as-not-for-sale'), { objects: ['A-1'] });
    await ctx.api.post(eventPath(s2.events[0]!, '/actions/mark-as-not-for-sale'), { objects: ['A-2'] });
    expect(await objectInfo(ctx.api, s2.events[0]!, 'A-1')).toMatchObject({ forSale: true, isAvailable: true });
    await done(ctx.api, s2.events[0]!, 'book', { objects: ['A-1'] });
  });

  it('not for sale in one event closes the season, not the other events', async () => {
    const s = await season(2);
    expect((await ctx.api.post(eventPath(s.events[0]!, '/actions/mark-as-not-for-sale'), { objects: ['A-2'] })).status).toBe(200);
    expectError(await book(s.key, ['A-2']), 400, 'OBJECT_NOT_FOR_SALE');
    await done(ctx.api, s.events[1]!, 'book', { objects: ['A-2'] });
    expectError(await book(s.events[0]!, ['A-2']), 400, 'OBJECT_NOT_FOR_SALE');
    // Once that event is in the past, it no longer holds the seat back from the season.
    const s2 = await season(1);
    await ctx.api.post(eventPath(s2.events[0]!, '/actions/mark-as-not-for-sale'), { objects: ['A-3'] });
    expectError(await book(s2.key, ['A-3']), 400, 'OBJECT_NOT_FOR_SALE');
    await past(s2.events[0]!);
    await done(ctx.api, s2.key, 'book', { objects: ['A-3'] });
  });

  it("events inherit the season's channels; replacing an event's channels is refused", async () => {
    const s = await season(2, { channels: [{ key: 'ch1', name: 'Channel 1', color: '#00ff00', index: 1, objects: ['A-1'] }] });
    expectError(await book(s.events[0]!, ['A-1']), 400, 'OBJECT_IN_CHANNEL');
    await done(ctx.api, s.events[0]!, 'book', { objects: ['A-1'], channelKeys: ['ch1'] });
    expect((await objectInfo(ctx.api, s.events[1]!, 'A-1')).channel).toBe('ch1');
    expectError(await book(s.key, ['A-2'], { channelKeys: ['ch1'] }), 400, 'OBJECT_NOT_IN_CHANNEL');
    // Channels added to the season later reach its events at once.
    const added = await ctx.api.post(eventPath(s.key, '/channels'), { key: 'ch2', name: 'Channel 2', objects: ['A-3'] });
    expect(added.status, added.text).toBe(204);
    expectError(await book(s.events[1]!, ['A-3']), 400, 'OBJECT_IN_CHANNEL');
    expect((await objectInfo(ctx.api, s.events[1]!, 'A-3')).channel).toBe('ch2');
    expectError(await ctx.api.post(eventPath(s.events[0]!, '/channels/replace'), { channels: [] }), 400, 'CHANNELS_MANAGED_ON_SEASON');
  });

  it('a channel assignment made only on an event leaves the object unavailable on the season', async () => {
    const s = await season(2);
    const added = await ctx.api.post(eventPath(s.events[0]!, '/channels'), { key: 'own', name: 'Own', objects: ['B-2'] });
    expect(added.status, added.text).toBe(204);
    expectError(await book(s.key, ['B-2']), 400, 'OBJECT_NOT_FOR_SALE');
    expectError(await book(s.key, ['B-2'], { ignoreChannels: true }), 400, 'OBJECT_NOT_FOR_SALE');
    await done(ctx.api, s.events[1]!, 'book', { objects: ['B-2'] });
    await done(ctx.api, s.events[0]!, 'book', { objects: ['B-2'], channelKeys: ['own'] });
  });
});

describe('partial seasons', () => {
  it("a place booked on a partial season is unavailable on the season and in the partial season's events only", async () => {
    const s = await season(3);
    const partial = `${s.key}-p`;
    await ctx.api.post(`/seasons/${s.key}/partial-seasons`, { key: partial, eventKeys: [s.events[0], s.events[1]] });
    await done(ctx.api, partial, 'book', { objects: ['A-4'] });
    expectError(await book(s.key, ['A-4']), 400, 'OBJECT_TAKEN_IN_SEASON');
    expectError(await book(s.events[0]!, ['A-4']), 400, 'OBJECT_TAKEN_IN_SEASON');
    expectError(await book(s.events[1]!, ['A-4']), 400, 'OBJECT_TAKEN_IN_SEASON');
    expect((await objectInfo(ctx.api, s.events[1]!, 'A-4')).status).toBe('booked');
    await done(ctx.api, s.events[2]!, 'book', { objects: ['A-4'] });
    // And the other way round: booked in an event of the partial season, unavailable on it.
    await done(ctx.api, s.events[0]!, 'book', { objects: ['A-6'] });
    expectError(await book(partial, ['A-6']), 400, 'OBJECT_TAKEN_IN_SEASON');
    await done(ctx.api, partial, 'book', { objects: ['A-7'] });
  });

  it('a partial season without events still blocks its bookings on the season', async () => {
    const s = await season(1);
    const partial = `${s.key}-empty`;
    await ctx.api.post(`/seasons/${s.key}/partial-seasons`, { key: partial });
    await done(ctx.api, partial, 'book', { objects: ['B-5'] });
    expectError(await book(s.key, ['B-5']), 400, 'OBJECT_TAKEN_IN_SEASON');
    await done(ctx.api, s.events[0]!, 'book', { objects: ['B-5'] });
  });
});

describe('events created later', () => {
  it('objects booked on the season are unavailable in events created with create-events', async () => {
    const s = await season(1);
    await done(ctx.api, s.key, 'book', { objects: ['A-8'] });
    const created = await ctx.api.post(`/seasons/${s.key}/actions/create-events`, { eventKeys: [`${s.key}-later`] });
    expect(created.status, created.text).toBe(200);
    expectError(await book(`${s.key}-later`, ['A-8']), 400, 'OBJECT_TAKEN_IN_SEASON');
    expect((await objectInfo(ctx.api, `${s.key}-later`, 'A-8')).status).toBe('booked');
    await done(ctx.api, `${s.key}-later`, 'book', { objects: ['A-7'] });
    expectError(await book(s.key, ['A-7']), 400, 'OBJECT_TAKEN_IN_SEASON');
  });
});

describe('overriding the season status', () => {
  it('frees a season seat in one event, which may then sell it; use-season-status gives it back', async () => {
    const s = await season(2);
    await done(ctx.api, s.key, 'book', { objects: ['C-3'] });
    const [e1, e2] = s.events as [string, string];
    expect((await ctx.api.post(eventPath(e1, '/actions/override-season-status'), { objects: ['C-3'] })).status).toBe(204);
    expect(await objectInfo(ctx.api, e1, 'C-3')).toMatchObject({ status: 'free', isAvailable: true, seasonStatusOverriddenQuantity: 1 });
    await done(ctx.api, e1, 'book', { objects: ['C-3'], orderId: 'walk-in' });
    expect(await objectInfo(ctx.api, e1, 'C-3')).toMatchObject({ status: 'booked', orderId: 'walk-in' });
    expectError(await book(e2, ['C-3']), 400, 'OBJECT_TAKEN_IN_SEASON');
    // Not while the event's own copy is taken.
    expectError(await ctx.api.post(eventPath(e1, '/actions/use-season-status'), { objects: ['C-3'] }), 400, 'OBJECT_NOT_FREE');
    await done(ctx.api, e1, 'release', { objects: ['C-3'] });
    expect((await ctx.api.post(eventPath(e1, '/actions/use-season-status'), { objects: ['C-3'] })).status).toBe(204);
    expect(await objectInfo(ctx.api, e1, 'C-3')).toMatchObject({ status: 'booked', seasonStatusOverriddenQuantity: 0 });
    expectError(await book(e1, ['C-3']), 400, 'OBJECT_TAKEN_IN_SEASON');
  });

  it('batch types OVERRIDE_SEASON_STATUS and USE_SEASON_STATUS, in one all-or-nothing call with a booking', async () => {
    const s = await season(1);
    const [e1] = s.events as [string];
    await done(ctx.api, s.key, 'book', { objects: ['C-4'] });
    const response = await ctx.api.post('/events/actions/change-object-status?expand=objects', {
      statusChanges: [
        { type: 'OVERRIDE_SEASON_STATUS', event: e1, objects: ['C-4'] },
        { event: e1, objects: ['C-4'], status: 'booked' },
      ],
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.results[1].objects['C-4'].status).toBe('booked');
    // A batch whose last change fails undoes the override too.
    const refused = await ctx.api.post('/events/actions/change-object-status', {
      statusChanges: [
        { type: 'OVERRIDE_SEASON_STATUS', event: e1, objects: ['C-5'] },
        { event: e1, objects: ['C-5'], status: 'booked' },
        { event: e1, objects: ['C-4'], status: 'booked' },
      ],
    });
    expect(refused.status).toBe(400);
    await done(ctx.api, s.key, 'book', { objects: ['C-5'] });
    expectError(await book(e1, ['C-5']), 400, 'OBJECT_TAKEN_IN_SEASON');
  });

  it("USE_SEASON_STATUS answers with the season's status, on its own route and in a batch", async () => {
    const s = await season(1);
    const [e1] = s.events as [string];
    await done(ctx.api, s.key, 'book', { objects: ['D-1', 'D-2'], orderId: 'season-order' });
    for (const label of ['D-1', 'D-2']) {
      expect((await ctx.api.post(eventPath(e1, '/actions/override-season-status'), { objects: [label] })).status).toBe(204);
    }
    const single = await ctx.api.post(eventPath(e1, '/actions/use-season-status?expand=objects'), { objects: ['D-1'] });
    expect(single.status, single.text).toBe(200);
    expect(single.body.objects['D-1']).toMatchObject({ status: 'booked' });
    const batch = await ctx.api.post('/events/actions/change-object-status?expand=objects', {
      statusChanges: [{ type: 'USE_SEASON_STATUS', event: e1, objects: ['D-2'] }],
    });
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body.results[0].objects['D-2']).toMatchObject({ status: 'booked' });
    // What object info says, the answers said.
    const info = await objectInfo(ctx.api, e1, 'D-2');
    expect(batch.body.results[0].objects['D-2']).toMatchObject({ status: info.status, orderId: info.orderId });
  });

  it('is refused on a season, on an event outside any season, and for GA areas', async () => {
    const s = await season(1);
    expectError(await ctx.api.post(eventPath(s.key, '/actions/override-season-status'), { objects: ['A-1'] }), 400, 'NOT_AN_EVENT_IN_A_SEASON');
    expectError(await ctx.api.post(eventPath(s.events[0]!, '/actions/override-season-status'), { objects: ['GA1'] }), 400, 'SEASON_OVERRIDE_NOT_SUPPORTED');
  });
});

describe('the past is frozen', () => {
  it('a past event refuses book, hold, release and change-object-status, and changes nothing', async () => {
    const s = await season(1);
    const [event] = s.events as [string];
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    await past(event);
    const token = await holdToken(ctx.api);
    expectError(await book(event, ['A-2']), 400, 'EVENT_IN_THE_PAST');
    expectError(await action(ctx.api, event, 'hold', { objects: ['A-2'], holdToken: token }), 400, 'EVENT_IN_THE_PAST');
    expectError(await action(ctx.api, event, 'release', { objects: ['A-1'] }), 400, 'EVENT_IN_THE_PAST');
    expectError(await action(ctx.api, event, 'change-object-status', { objects: ['A-3'], status: 'custom' }), 400, 'EVENT_IN_THE_PAST');
    expectError(await ctx.api.post(eventPath(event, '/actions/update-extra-data'), { extraData: { 'A-1': { a: 1 } } }), 400, 'EVENT_IN_THE_PAST');
    expect(await statuses(ctx.api, event, ['A-1', 'A-2', 'A-3'])).toEqual({ 'A-1': 'booked', 'A-2': 'free', 'A-3': 'free' });
  });
});

describe('used seats', () => {
  it('a place booked on a season of 5 events counts 6 in the usage report', async () => {
    const clients = await createCompanyClients(ctx.server.url);
    const chart = (await uploadDrawing(clients.api, rowsWithoutSections)).key;
    const record = await createSeason(clients.api, chart, { numberOfEvents: 5 });
    await done(clients.api, record.key, 'book', { objects: ['A-1'] });
    await usageCounted(ctx.server);
    const month = await clients.admin.get(`/reports/usage/month/${thisMonth()}`);
    expect(month.status, month.text).toBe(200);
    const byEvent = month.body.flatMap((w: { usageByEvent: { event: { key: string }; numUsedObjects: number }[] }) => w.usageByEvent);
    expect(byEvent).toHaveLength(6);
    expect(byEvent.reduce((sum: number, e: { numUsedObjects: number }) => sum + e.numUsedObjects, 0)).toBe(6);
    expect((await clients.admin.get('/reports/usage')).body.usage[0].numUsedObjects).toBe(6);
  });
});

describe('object info on a season', () => {
  it('shows an object free on the season but taken in an event, or kept back by one, as unavailable', async () => {
    const s = await season(2);
    await done(ctx.api, s.events[0]!, 'book', { objects: ['A-1'] });
    await ctx.api.post(eventPath(s.events[1]!, '/actions/mark-as-not-for-sale'), { objects: ['A-2'] });
    const infos = (await ctx.api.get(eventPath(s.key, '/objects?label=A-1&label=A-2&label=A-3'))).body;
    expect(infos['A-1']).toMatchObject({ status: 'free', isAvailable: false, availabilityReason: 'booked' });
    expect(infos['A-2']).toMatchObject({ status: 'free', isAvailable: false, availabilityReason: 'not_for_sale' });
    expect(infos['A-3']).toMatchObject({ status: 'free', isAvailable: true, availabilityReason: 'available' });
  });
});

describe('season keys on the event routes', () => {
  it('hold, book with the token, extra data, orders, object info, by-status report, groups and batches within a season take a season key', async () => {
    const a = await season(1);
    const b = await season(1);
    const token = await holdToken(ctx.api);
    await done(ctx.api, a.key, 'hold', { objects: ['A-1', 'A-2'], holdToken: token });
    expectError(await book(a.events[0]!, ['A-1']), 400, 'OBJECT_TAKEN_IN_SEASON');
    await done(ctx.api, a.key, 'book', { objects: ['A-1', 'A-2'], holdToken: token, orderId: 'o-1' });
    expect((await ctx.api.get(eventPath(a.key, '/orders/o-1'))).body).toEqual(['A-1', 'A-2']);
    expect((await ctx.api.post(eventPath(a.key, '/actions/update-extra-data'), { extraData: { 'A-1': { fan: 'yes' } } })).status).toBe(204);
    expect((await objectInfo(ctx.api, a.key, 'A-1')).extraData).toEqual({ fan: 'yes' });
    const report = await ctx.api.get(`/reports/events/${a.key}/byStatus/booked`);
    expect(report.body.booked.map((o: { label: string }) => o.label).sort()).toEqual(['A-1', 'A-2']);
    // A group and a batch over the season and its event (one hash tag, so on Redis Cluster too).
    // The group takes C-1 on the event, then on the season, which the event's booking
    // already took: all or nothing, the event keeps it free too.
    const group = await ctx.api.post('/events/groups/actions/change-object-status', { events: [b.events[0], b.key], objects: ['C-1'], status: 'booked' });
    expectError(group, 400, 'OBJECT_TAKEN_IN_SEASON');
    expect(await statuses(ctx.api, b.key, ['C-1'])).toEqual({ 'C-1': 'free' });
    expect(await statuses(ctx.api, b.events[0]!, ['C-1'])).toEqual({ 'C-1': 'free' });
    const batch = await ctx.api.post('/events/actions/change-object-status', {
      statusChanges: [
        { event: b.key, objects: ['B-1'], status: 'booked' },
        { event: b.events[0], objects: ['B-2'], status: 'booked' },
      ],
    });
    expect(batch.status, batch.text).toBe(204);
    expectError(await book(b.events[0]!, ['B-1']), 400, 'OBJECT_TAKEN_IN_SEASON');
    expect(await statuses(ctx.api, b.events[0]!, ['B-2'])).toEqual({ 'B-2': 'booked' });
  });

  it("keeps every unit's inventory under the season's hash tag, so one script call reaches all of them", async () => {
    const s = await season(2);
    const partial = `${s.key}-p`;
    await ctx.api.post(`/seasons/${s.key}/partial-seasons`, { key: partial, eventKeys: [s.events[0]] });
    await done(ctx.api, s.key, 'book', { objects: ['A-1'] });
    await done(ctx.api, partial, 'book', { objects: ['A-2'] });
    await done(ctx.api, s.events[1]!, 'book', { objects: ['A-3'] });
    await ctx.api.post(eventPath(s.events[0]!, '/actions/override-season-status'), { objects: ['A-1'] });
    await ctx.api.post(eventPath(s.events[1]!, '/actions/mark-as-not-for-sale'), { objects: ['A-4'] });
    const workspace = ctx.company.workspace.id;
    const top = await storedEvent(ctx.server, workspace, s.key);
    const ids = await Promise.all([s.key, partial, ...s.events].map(async (key) => (await storedEvent(ctx.server, workspace, key))._id));
    const keys = await redisKeysOf(ctx.server, top);
    // objects of the season, the partial season and an event; the count; an override; sale configs.
    for (const id of ids) expect(keys.some((k) => k.includes(`}:${id}:`)), `keys of unit ${id}`).toBe(true);
    expect(keys.some((k) => k.endsWith(`}:${top._id}:seasonUse`))).toBe(true);
    expect(keys.some((k) => k.endsWith(':seasonOverrides'))).toBe(true);
    for (const id of ids) expect((await storedEvent(ctx.server, workspace, [s.key, partial, ...s.events][ids.indexOf(id)]!)).tag).toBe(top.tag);
  });
});

describe('general admission under concurrent load', () => {
  it('concurrent place bookings on the season and its events never give an event more places than the area has', async () => {
    const s = await season(3);
    const units = [s.key, ...s.events];
    // 160 requests of 1..3 places over the season and its events, all at once: about 80
    // places asked for on each unit, so the season and any one event together want 160 of 100.
    const requests = Array.from({ length: 160 }, (_, i) => ({ unit: units[i % units.length]!, places: (i % 3) + 1 }));
    const answers = await Promise.all(requests.map(({ unit, places }) => book(unit, [{ objectId: 'GA1', quantity: places }])));
    const sold = new Map<string, number>();
    answers.forEach((answer, i) => {
      if (answer.status === 204) sold.set(requests[i]!.unit, (sold.get(requests[i]!.unit) ?? 0) + requests[i]!.places);
      else expect(codes(answer)).toEqual(['NOT_ENOUGH_FREE_PLACES']);
    });
    const onSeason = sold.get(s.key) ?? 0;
    for (const event of s.events) {
      const inEvent = sold.get(event) ?? 0;
      expect(onSeason + inEvent).toBeLessThanOrEqual(100);
      const info = await objectInfo(ctx.api, event, 'GA1');
      expect(info.numBooked).toBe(inEvent);
    }
    expect((await objectInfo(ctx.api, s.key, 'GA1')).numBooked).toBe(onSeason);
    // Someone was refused, and the area was sold up to (nearly) its capacity in some event.
    expect(answers.some((a) => a.status === 400)).toBe(true);
    expect(Math.max(...s.events.map((e) => onSeason + (sold.get(e) ?? 0)))).toBeGreaterThanOrEqual(97);
  });
});

describe('a season changing while requests are planned', () => {
  it('a change planned on an old make-up is refused by the script and planned again on the new one', async () => {
    const s = await season(2);
    const partial = `${s.key}-p`;
    await ctx.api.post(`/seasons/${s.key}/partial-seasons`, { key: partial });
    const [e1] = s.events as [string];
    // The event is loaded (and cached) with a scope of the season alone.
    await done(ctx.api, e1, 'book', { objects: ['A-1'] });
    // Another process adds the event to the partial season: MongoDB changes and the version
    // goes up, but this process has not heard of it yet (its cached scope is stale).
    const { repos, redis } = ctx.server.app.parts;
    const workspace = ctx.company.workspace.id;
    const partialDoc = await storedEvent(ctx.server, workspace, partial);
    const event = await storedEvent(ctx.server, workspace, e1);
    await repos.events.relink(partialDoc, { role: 'partial', topId: event.season!.role === 'event' ? event.season!.topId : 0, eventIds: [event._id] });
    await redis.incr(seasonVersionKey(partialDoc));
    await done(ctx.api, partial, 'book', { objects: ['A-2'] });
    // The stale plan would not look at the partial season; the script refuses it, the server
    // replans with the partial season in the scope, and the seat is refused as taken.
    expectError(await book(e1, ['A-2']), 400, 'OBJECT_TAKEN_IN_SEASON');
    await done(ctx.api, e1, 'book', { objects: ['A-3'] });
  });
});
