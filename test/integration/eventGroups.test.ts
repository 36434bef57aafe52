import { describe, expect, it } from 'vitest';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { createEvent, done, holdToken, objectInfo, objectInfos, statuses } from '../support/events.js';
import { expectError } from '../support/harness.js';
import { useEventPerTest } from '../support/eventPerTest.js';
import { createSeason, eventKeysOf } from '../support/seasons.js';

// Event groups and batches that change several events in one request, all or nothing, on
// one Redis. On Redis Cluster such a request is refused unless its events share a slot
// (docs/operations.md, "Redis Cluster"): test/cluster/eventGroups.test.ts. The same routes on one
// event: objectStatus.test.ts.

let event: string;
const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key), 'shared');

describe('event groups', () => {
  const group = (body: Record<string, unknown>, expand = true) =>
    ctx.api.post(`/events/groups/actions/change-object-status${expand ? '?expand=objects' : ''}`, body);

  it('changes the objects in every event: 200 with the objects keyed by label', async () => {
    const other = await createEvent(ctx.api, ctx.chartKey);
    const response = await group({ events: [event, other], type: 'CHANGE_STATUS_TO', status: 'booked', objects: [{ objectId: 'A-1' }, 'A-2'], orderId: 'g1' });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body.objects).sort()).toEqual(['A-1', 'A-2']);
    expect(response.body.objects['A-1']).toMatchObject({ status: 'booked', orderId: 'g1' });
    for (const key of [event, other]) {
      expect(await statuses(ctx.api, key, ['A-1', 'A-2'])).toEqual({ 'A-1': 'booked', 'A-2': 'booked' });
    }
  });

  it('answers 204 without expand; type defaults to CHANGE_STATUS_TO; RELEASE frees', async () => {
    const other = await createEvent(ctx.api, ctx.chartKey);
    expect((await group({ events: [event, other], status: 'sold', objects: ['A-1'] }, false)).status).toBe(204);
    expect((await objectInfo(ctx.api, other, 'A-1')).status).toBe('sold');
    const released = await group({ events: [event, other], type: 'RELEASE', objects: ['A-1'] });
    expect(released.status, released.text).toBe(200);
    expect(released.body.objects['A-1'].status).toBe('free');
    expect(await statuses(ctx.api, event, ['A-1'])).toEqual({ 'A-1': 'free' });
    expect(await statuses(ctx.api, other, ['A-1'])).toEqual({ 'A-1': 'free' });
  });

  it('is all or nothing across events: one event refusing leaves both unchanged', async () => {
    const other = await createEvent(ctx.api, ctx.chartKey);
    await done(ctx.api, other, 'book', { objects: ['A-2'], orderId: 'before' });
    const response = await group({ events: [event, other], type: 'CHANGE_STATUS_TO', status: 'booked', objects: ['A-1', 'A-2'], orderId: 'group' });
    expectError(response, 400, 'OBJECT_NOT_FREE');
    expect(await statuses(ctx.api, event, ['A-1', 'A-2'])).toEqual({ 'A-1': 'free', 'A-2': 'free' });
    expect(await objectInfos(ctx.api, other, ['A-1', 'A-2'])).toMatchObject({ 'A-1': { status: 'free' }, 'A-2': { status: 'booked', orderId: 'before' } });
  });
});

describe('batch', () => {
  const batch = (statusChanges: Record<string, unknown>[], expand = true) =>
    ctx.api.post(`/events/actions/change-object-status${expand ? '?expand=objects' : ''}`, { statusChanges });

  it('answers the results in request order', async () => {
    const other = await createEvent(ctx.api, ctx.chartKey);
    const response = await batch([
      { event, type: 'CHANGE_STATUS_TO', status: 'booked', objects: ['A-1'], orderId: 'b1' },
      { event: other, status: 'lounge', objects: ['B-1', 'B-2'] },
    ]);
    expect(response.status, response.text).toBe(200);
    expect(response.body.results).toHaveLength(2);
    expect(Object.keys(response.body.results[0].objects)).toEqual(['A-1']);
    expect(response.body.results[0].objects['A-1']).toMatchObject({ status: 'booked', orderId: 'b1' });
    expect(Object.keys(response.body.results[1].objects).sort()).toEqual(['B-1', 'B-2']);
    expect(response.body.results[1].objects['B-2'].status).toBe('lounge');
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('booked');
    expect(await statuses(ctx.api, other, ['B-1', 'B-2'])).toEqual({ 'B-1': 'lounge', 'B-2': 'lounge' });
  });

  it('a failing change on another event leaves the first event unchanged', async () => {
    const other = await createEvent(ctx.api, ctx.chartKey);
    const response = await batch([
      { event, status: 'booked', objects: ['A-1'] },
      { event: other, type: 'RELEASE', objects: ['A-1'] },
    ]);
    expectError(response, 400, 'OBJECT_NOT_RELEASABLE');
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('free');
  });
});

describe('resale listing ids', () => {
  it('change-object-status carries it on one event, on event groups and in batches', async () => {
    const other = await createEvent(ctx.api, ctx.chartKey);
    await done(ctx.api, event, 'change-object-status', { objects: ['B-1'], status: 'resale', resaleListingId: 'single' });
    expect((await ctx.api.post('/events/groups/actions/change-object-status', { events: [event, other], status: 'resale', objects: ['B-2'], resaleListingId: 'group' })).status).toBe(204);
    const batch = await ctx.api.post('/events/actions/change-object-status?expand=objects', {
      statusChanges: [{ event: other, status: 'resale', objects: ['B-3'], resaleListingId: 'batch' }],
    });
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body.results[0].objects['B-3']).toMatchObject({ resaleListingId: 'batch' });
    expect(await objectInfos(ctx.api, event, ['B-1', 'B-2'])).toMatchObject({ 'B-1': { resaleListingId: 'single' }, 'B-2': { resaleListingId: 'group' } });
    expect(await objectInfos(ctx.api, other, ['B-2', 'B-3'])).toMatchObject({ 'B-2': { resaleListingId: 'group' }, 'B-3': { resaleListingId: 'batch' } });
  });
});

describe('across seasons', () => {
  it('a group over two seasons is all or nothing; a batch books on each', async () => {
    const [a, b] = [await createSeason(ctx.api, ctx.chartKey, { numberOfEvents: 1 }), await createSeason(ctx.api, ctx.chartKey, { numberOfEvents: 1 })];
    const token = await holdToken(ctx.api);
    await done(ctx.api, a.key, 'hold', { objects: ['A-1'], holdToken: token });
    await done(ctx.api, a.key, 'book', { objects: ['A-1'], holdToken: token });
    // A-1 is taken on season a, so nothing is booked on b.
    const group = await ctx.api.post('/events/groups/actions/change-object-status', { events: [b.key, a.key], objects: ['A-1'], status: 'booked' });
    expectError(group, 400, 'OBJECT_NOT_FREE');
    expect(await statuses(ctx.api, b.key, ['A-1'])).toEqual({ 'A-1': 'free' });
    const batch = await ctx.api.post('/events/actions/change-object-status', {
      statusChanges: [
        { event: b.key, objects: ['B-1'], status: 'booked' },
        { event: eventKeysOf(a)[0], objects: ['B-1'], status: 'booked' },
      ],
    });
    expect(batch.status, batch.text).toBe(204);
    expect(await statuses(ctx.api, b.key, ['B-1'])).toEqual({ 'B-1': 'booked' });
    expect(await statuses(ctx.api, eventKeysOf(a)[0]!, ['B-1'])).toEqual({ 'B-1': 'booked' });
  });
});
