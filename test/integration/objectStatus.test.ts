import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rowsWithoutSections, withTables } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { action, codes, createEvent, done, holdToken, objectInfo, objectInfos, statuses } from '../support/events.js';
import { expectError } from '../support/harness.js';
import { useEventPerTest } from '../support/eventPerTest.js';

// The priority lane on seats, tables and booths (docs/seatsio-behaviour.md,
// "Object statuses"): book, release, custom statuses, put-up-for-resale, table booking
// modes, channels, for sale, event groups and batches on one event. Changes of several
// events in one request: eventGroups.test.ts. Holds: holds.test.ts; GA areas:
// generalAdmission.test.ts; bad input: statusBadInput.test.ts.

let event: string;
const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key), 'shared');
let tablesChartKey: string;

beforeAll(async () => {
  tablesChartKey = (await uploadDrawing(ctx.api, withTables)).key;
});

describe('book', () => {
  it('books free seats: 204 without expand, the seats are booked afterwards', async () => {
    const response = await action(ctx.api, event, 'book', { objects: ['A-1', 'A-2'] });
    expect(response.status, response.text).toBe(204);
    expect(response.text).toBe('');
    expect(await statuses(ctx.api, event, ['A-1', 'A-2', 'A-3'])).toEqual({ 'A-1': 'booked', 'A-2': 'booked', 'A-3': 'free' });
  });

  it('answers 200 with the objects keyed by label with expand=objects', async () => {
    const response = await action(ctx.api, event, 'book', { objects: ['A-1', { objectId: 'B-8' }], orderId: 'order-1' }, true);
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body.objects).sort()).toEqual(['A-1', 'B-8']);
    const a1 = response.body.objects['A-1'];
    expect(a1).toMatchObject({
      label: 'A-1',
      labels: { own: { label: '1', type: 'seat' }, parent: { label: 'A', type: 'row' } },
      ids: { own: '1', parent: 'A' },
      status: 'booked',
      categoryKey: '9',
      categoryLabel: 'Cat1',
      objectType: 'seat',
      forSale: true,
      orderId: 'order-1',
      isAvailable: false,
      availabilityReason: 'booked',
      rightNeighbour: 'A-2',
    });
    expect(a1.leftNeighbour).toBeUndefined();
    expect(a1.holdToken).toBeUndefined();
    expect(a1.ticketType).toBeUndefined();
    expect(a1.extraData).toBeUndefined();
    expect(response.body.objects['B-8']).toMatchObject({ status: 'booked', isAccessible: true, hasRestrictedView: true, orderId: 'order-1' });
    // The stored state is what the response showed.
    const stored = await objectInfo(ctx.api, event, 'A-1');
    expect(stored).toEqual(a1);
  });

  it('stores the order id, the ticket type and the extra data per object', async () => {
    await done(ctx.api, event, 'book', {
      objects: [{ objectId: 'A-1', ticketType: 'adult', extraData: { name: 'Ann', age: 40 } }, { objectId: 'A-2', ticketType: 'child' }, 'A-3'],
      orderId: 'o-42',
    });
    const infos = await objectInfos(ctx.api, event, ['A-1', 'A-2', 'A-3']);
    expect(infos['A-1']).toMatchObject({ status: 'booked', orderId: 'o-42', ticketType: 'adult', extraData: { name: 'Ann', age: 40 } });
    expect(infos['A-2']).toMatchObject({ status: 'booked', orderId: 'o-42', ticketType: 'child' });
    expect(infos['A-2']!.extraData).toBeUndefined();
    expect(infos['A-3']).toMatchObject({ status: 'booked', orderId: 'o-42' });
    expect(infos['A-3']!.ticketType).toBeUndefined();
  });

  it('clears extra data on a later change unless keepExtraData is true; new extra data replaces it', async () => {
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'A-1', extraData: { a: 1 } }, { objectId: 'A-2', extraData: { b: 2 } }] });
    // keepExtraData true keeps it through a release.
    await done(ctx.api, event, 'release', { objects: ['A-1', 'A-2'], keepExtraData: true });
    let infos = await objectInfos(ctx.api, event, ['A-1', 'A-2']);
    expect(infos['A-1']).toMatchObject({ status: 'free', extraData: { a: 1 } });
    expect(infos['A-2']).toMatchObject({ status: 'free', extraData: { b: 2 } });

    // keepExtraData false (or absent) clears it; extra data in the request replaces it even with keepExtraData.
    await done(ctx.api, event, 'book', { objects: ['A-1'], keepExtraData: false });
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'A-2', extraData: { c: 3 } }], keepExtraData: true });
    infos = await objectInfos(ctx.api, event, ['A-1', 'A-2']);
    expect(infos['A-1']!.extraData).toBeUndefined();
    expect(infos['A-2']!.extraData).toEqual({ c: 3 });

    await done(ctx.api, event, 'release', { objects: ['A-2'] });
    expect((await objectInfo(ctx.api, event, 'A-2')).extraData).toBeUndefined();
  });

  it('refuses a booked seat with 400 OBJECT_NOT_FREE and leaves the other objects of the request unchanged', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-2'], orderId: 'first' });
    const response = await action(ctx.api, event, 'book', { objects: ['A-1', { objectId: 'A-3', extraData: { x: 1 } }, 'A-2'], orderId: 'second' });
    expectError(response, 400, 'OBJECT_NOT_FREE');
    expect(codes(response)).toEqual(['OBJECT_NOT_FREE']);
    expect(response.body.errors[0].message).toContain('A-2');
    expect(response.body.errors[0].message).not.toContain('A-1');
    const infos = await objectInfos(ctx.api, event, ['A-1', 'A-2', 'A-3']);
    expect(infos['A-1']!.status).toBe('free');
    expect(infos['A-3']!.status).toBe('free');
    expect(infos['A-3']!.extraData).toBeUndefined();
    expect(infos['A-2']).toMatchObject({ status: 'booked', orderId: 'first' });
  });

  it('names every refused object in one error per reason', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1', 'A-3'] });
    const response = await action(ctx.api, event, 'book', { objects: ['A-1', 'A-2', 'A-3'] });
    expectError(response, 400, 'OBJECT_NOT_FREE');
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors[0].data.objects).toEqual(['A-1', 'A-3']);
    expect((await objectInfo(ctx.api, event, 'A-2')).status).toBe('free');
  });

  it('books an object in a custom status only after a release', async () => {
    await done(ctx.api, event, 'change-object-status', { objects: ['A-1'], status: 'lounge' });
    expectError(await action(ctx.api, event, 'book', { objects: ['A-1'] }), 400, 'OBJECT_NOT_FREE');
    await done(ctx.api, event, 'release', { objects: ['A-1'] });
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('booked');
  });

  it('books through change-object-status with status booked, as the SDKs do', async () => {
    const response = await action(ctx.api, event, 'change-object-status', { objects: ['A-1'], status: 'booked', orderId: 'sdk' }, true);
    expect(response.status, response.text).toBe(200);
    expect(response.body.objects['A-1']).toMatchObject({ status: 'booked', orderId: 'sdk' });
    expectError(await action(ctx.api, event, 'change-object-status', { objects: ['A-1'], status: 'booked' }), 400, 'OBJECT_NOT_FREE');
  });
});

describe('release', () => {
  it('frees a booked seat and removes it from its order', async () => {
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'A-1', ticketType: 'adult' }], orderId: 'o1' });
    const response = await action(ctx.api, event, 'release', { objects: ['A-1'] }, true);
    expect(response.status, response.text).toBe(200);
    const a1 = response.body.objects['A-1'];
    expect(a1).toMatchObject({ status: 'free', isAvailable: true, availabilityReason: 'available' });
    expect(a1.orderId).toBeUndefined();
    expect(a1.ticketType).toBeUndefined();
    expect(await objectInfo(ctx.api, event, 'A-1')).toEqual(a1);
  });

  it('answers 204 without expand', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    const response = await action(ctx.api, event, 'release', { objects: ['A-1'] });
    expect(response.status).toBe(204);
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('free');
  });

  it('takes the object out of its order on release, and stores the order id the release carries', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'], orderId: 'o1' });
    await done(ctx.api, event, 'release', { objects: ['A-1'], orderId: 'refund-1' });
    const info = await objectInfo(ctx.api, event, 'A-1');
    expect(info.status).toBe('free');
    expect(info.orderId).toBe('refund-1');
    expect((await ctx.api.get(`/events/${event}/orders/o1`)).body).toEqual([]);
    expect((await ctx.api.get(`/events/${event}/orders/refund-1`)).body).toEqual(['A-1']);
  });

  it('gives a resale seat back to resale: resale → booked → release', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    const resale = await action(ctx.api, event, 'put-up-for-resale', { objects: ['A-1'] }, true);
    expect(resale.status, resale.text).toBe(200);
    expect(resale.body.objects['A-1']).toMatchObject({ status: 'resale', isAvailable: true, availabilityReason: 'available' });
    await done(ctx.api, event, 'book', { objects: ['A-1'], orderId: 'buyer-2' });
    expect(await objectInfo(ctx.api, event, 'A-1')).toMatchObject({ status: 'booked', orderId: 'buyer-2' });
    await done(ctx.api, event, 'release', { objects: ['A-1'] });
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('resale');
  });

  it('refuses a free object with 400 OBJECT_NOT_RELEASABLE and releases nothing else', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    const response = await action(ctx.api, event, 'release', { objects: ['A-1', 'A-2'] });
    expectError(response, 400, 'OBJECT_NOT_RELEASABLE');
    expect(response.body.errors[0].data.objects).toEqual(['A-2']);
    expect(await statuses(ctx.api, event, ['A-1', 'A-2'])).toEqual({ 'A-1': 'booked', 'A-2': 'free' });
  });

  it('frees an object in a custom status', async () => {
    await done(ctx.api, event, 'change-object-status', { objects: ['A-1', 'A-2'], status: 'sold-at-door' });
    await done(ctx.api, event, 'release', { objects: ['A-1', 'A-2'] });
    expect(await statuses(ctx.api, event, ['A-1', 'A-2'])).toEqual({ 'A-1': 'free', 'A-2': 'free' });
  });
});

describe('custom statuses', () => {
  it('sets any status on free and booked objects, shown as the availability reason', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-2'] });
    const response = await action(ctx.api, event, 'change-object-status', { objects: ['A-1', 'A-2'], status: 'VIP reserved ✓' }, true);
    expect(response.status, response.text).toBe(200);
    for (const label of ['A-1', 'A-2']) {
      expect(response.body.objects[label]).toMatchObject({ status: 'VIP reserved ✓', isAvailable: false, availabilityReason: 'VIP reserved ✓' });
    }
    expect(await statuses(ctx.api, event, ['A-1', 'A-2'])).toEqual({ 'A-1': 'VIP reserved ✓', 'A-2': 'VIP reserved ✓' });
  });

  it('accepts a status of exactly 100 characters', async () => {
    const status = 's'.repeat(100);
    await done(ctx.api, event, 'change-object-status', { objects: ['A-1'], status });
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe(status);
  });

  it('sets free through change-object-status', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    await done(ctx.api, event, 'change-object-status', { objects: ['A-1'], status: 'free' });
    expect(await objectInfo(ctx.api, event, 'A-1')).toMatchObject({ status: 'free', isAvailable: true });
  });

  it('allowedPreviousStatuses not matching → 400 with exactly one ILLEGAL_STATUS_CHANGE, nothing changed', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'], orderId: 'o1' });
    const response = await action(ctx.api, event, 'change-object-status', {
      objects: ['A-1', 'A-2', 'A-3'],
      status: 'checked-in',
      allowedPreviousStatuses: ['booked'],
    });
    expectError(response, 400, 'ILLEGAL_STATUS_CHANGE');
    // Both refused objects were free: one sentence, as seats.io words it.
    expect(response.body.errors).toEqual([
      { code: 'ILLEGAL_STATUS_CHANGE', message: 'Cannot change from [free] to [checked-in]: free is not in the list of allowed previous statuses' },
    ]);
    const infos = await objectInfos(ctx.api, event, ['A-1', 'A-2', 'A-3']);
    expect(infos['A-1']).toMatchObject({ status: 'booked', orderId: 'o1' });
    expect(infos['A-2']!.status).toBe('free');
    expect(infos['A-3']!.status).toBe('free');
  });

  it('allowedPreviousStatuses matching lets the change through', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    await done(ctx.api, event, 'change-object-status', { objects: ['A-1'], status: 'checked-in', allowedPreviousStatuses: ['booked', 'free'] });
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('checked-in');
  });

  it('rejectedPreviousStatuses matching → 400 with exactly one ILLEGAL_STATUS_CHANGE, nothing changed', async () => {
    await done(ctx.api, event, 'change-object-status', { objects: ['A-1'], status: 'blocked' });
    const response = await action(ctx.api, event, 'change-object-status', {
      objects: ['A-2', 'A-1'],
      status: 'booked',
      rejectedPreviousStatuses: ['blocked'],
    });
    expectError(response, 400, 'ILLEGAL_STATUS_CHANGE');
    expect(response.body.errors).toEqual([
      { code: 'ILLEGAL_STATUS_CHANGE', message: 'Cannot change from [blocked] to [booked]: blocked is in the list of rejected previous statuses' },
    ]);
    expect(await statuses(ctx.api, event, ['A-1', 'A-2'])).toEqual({ 'A-1': 'blocked', 'A-2': 'free' });

    // Not matching: the change happens.
    await done(ctx.api, event, 'change-object-status', { objects: ['A-2'], status: 'booked', rejectedPreviousStatuses: ['blocked'] });
    expect((await objectInfo(ctx.api, event, 'A-2')).status).toBe('booked');
  });

  // seats.io's own words (docs/seatsio-behaviour.md, "Changing object status"): the error is
  // exactly {code, message}, with the current status and the one asked for in brackets.
  it('words a refusal by allowedPreviousStatuses or rejectedPreviousStatuses as seats.io does, exactly code and message', async () => {
    const allowed = await action(ctx.api, event, 'change-object-status', { objects: ['A-1'], status: 'lolzor', allowedPreviousStatuses: ['SomeOtherStatus'] });
    expectError(allowed, 400, 'ILLEGAL_STATUS_CHANGE');
    expect(allowed.body.errors).toStrictEqual([
      { code: 'ILLEGAL_STATUS_CHANGE', message: 'Cannot change from [free] to [lolzor]: free is not in the list of allowed previous statuses' },
    ]);
    expect(allowed.body.messages).toEqual(['Cannot change from [free] to [lolzor]: free is not in the list of allowed previous statuses']);
    const rejected = await action(ctx.api, event, 'change-object-status', { objects: ['A-1'], status: 'lolzor', rejectedPreviousStatuses: ['free'] });
    expectError(rejected, 400, 'ILLEGAL_STATUS_CHANGE');
    expect(rejected.body.errors).toStrictEqual([
      { code: 'ILLEGAL_STATUS_CHANGE', message: 'Cannot change from [free] to [lolzor]: free is in the list of rejected previous statuses' },
    ]);
    // The same through the batch and the event-group routes (the SDKs' own wire format).
    const batch = await ctx.api.post('/events/actions/change-object-status', {
      statusChanges: [{ event, objects: ['A-1'], status: 'lolzor', allowedPreviousStatuses: ['SomeOtherStatus'] }],
    });
    expect(batch.status, batch.text).toBe(400);
    expect(batch.body.errors).toStrictEqual([
      { code: 'ILLEGAL_STATUS_CHANGE', message: 'Cannot change from [free] to [lolzor]: free is not in the list of allowed previous statuses' },
    ]);
    const group = await ctx.api.post('/events/groups/actions/change-object-status', {
      events: [event], type: 'CHANGE_STATUS_TO', objects: [{ objectId: 'A-1' }], status: 'lolzor', rejectedPreviousStatuses: ['free'],
    });
    expect(group.status, group.text).toBe(400);
    expect(group.body.errors).toStrictEqual([
      { code: 'ILLEGAL_STATUS_CHANGE', message: 'Cannot change from [free] to [lolzor]: free is in the list of rejected previous statuses' },
    ]);
    expect(await objectInfo(ctx.api, event, 'A-1')).toMatchObject({ status: 'free' });
  });

  it('names the status a book, hold or release asks for; one error per distinct sentence, other refusals keep data.objects', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    await done(ctx.api, event, 'change-object-status', { objects: ['A-3'], status: 'blocked' });
    const release = await action(ctx.api, event, 'release', { objects: ['A-1'], allowedPreviousStatuses: ['lounge'] });
    expect(release.body.errors).toStrictEqual([
      { code: 'ILLEGAL_STATUS_CHANGE', message: 'Cannot change from [booked] to [free]: booked is not in the list of allowed previous statuses' },
    ]);
    const hold = await action(ctx.api, event, 'hold', { objects: ['A-2'], holdToken: await holdToken(ctx.api), rejectedPreviousStatuses: ['free'] });
    expect(hold.body.errors).toStrictEqual([
      { code: 'ILLEGAL_STATUS_CHANGE', message: 'Cannot change from [free] to [reservedByToken]: free is in the list of rejected previous statuses' },
    ]);
    // Three objects in two statuses: a sentence for each.
    const several = await action(ctx.api, event, 'book', { objects: ['A-1', 'A-2', 'A-3'], allowedPreviousStatuses: ['free'] });
    expectError(several, 400, 'ILLEGAL_STATUS_CHANGE');
    expect(several.body.errors).toStrictEqual([
      { code: 'ILLEGAL_STATUS_CHANGE', message: 'Cannot change from [booked] to [booked]: booked is not in the list of allowed previous statuses' },
      { code: 'ILLEGAL_STATUS_CHANGE', message: 'Cannot change from [blocked] to [booked]: blocked is not in the list of allowed previous statuses' },
    ]);
    expect(await statuses(ctx.api, event, ['A-1', 'A-2', 'A-3'])).toEqual({ 'A-1': 'booked', 'A-2': 'free', 'A-3': 'blocked' });
    // A refusal of another kind still names its objects.
    const notFree = await action(ctx.api, event, 'book', { objects: ['A-1'] });
    expectError(notFree, 400, 'OBJECT_NOT_FREE');
    expect(notFree.body.errors[0].data.objects).toEqual(['A-1']);
  });

  it('checks previous statuses on book and release too', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    expectError(await action(ctx.api, event, 'release', { objects: ['A-1'], allowedPreviousStatuses: ['lounge'] }), 400, 'ILLEGAL_STATUS_CHANGE');
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('booked');
    expectError(await action(ctx.api, event, 'book', { objects: ['A-2'], rejectedPreviousStatuses: ['free'] }), 400, 'ILLEGAL_STATUS_CHANGE');
    expect((await objectInfo(ctx.api, event, 'A-2')).status).toBe('free');
  });
});

describe('table booking modes', () => {
  it('ALL_BY_TABLE: the table is bookable, its seats are not', async () => {
    const tables = await createEvent(ctx.api, tablesChartKey, { tableBookingConfig: { mode: 'ALL_BY_TABLE' } });
    const response = await action(ctx.api, tables, 'book', { objects: ['T1'] }, true);
    expect(response.status, response.text).toBe(200);
    expect(response.body.objects.T1).toMatchObject({ label: 'T1', objectType: 'table', status: 'booked', numSeats: 6 });
    expect((await objectInfo(ctx.api, tables, 'T1')).status).toBe('booked');
    const seat = await action(ctx.api, tables, 'book', { objects: ['T2-1'] });
    expectError(seat, 400, 'OBJECT_NOT_BOOKABLE');
    expect((await objectInfo(ctx.api, tables, 'T2-1')).status).toBe('free');
  });

  it('ALL_BY_SEAT: the seats are bookable, the tables are not', async () => {
    const seats = await createEvent(ctx.api, tablesChartKey, { tableBookingConfig: { mode: 'ALL_BY_SEAT' } });
    await done(ctx.api, seats, 'book', { objects: ['T1-1', 'T2-6'] });
    expect(await statuses(ctx.api, seats, ['T1-1', 'T2-6', 'T1-2'])).toEqual({ 'T1-1': 'booked', 'T2-6': 'booked', 'T1-2': 'free' });
    for (const table of ['T1', 'T2']) {
      expectError(await action(ctx.api, seats, 'book', { objects: [table] }), 400, 'OBJECT_NOT_BOOKABLE');
      expect((await objectInfo(ctx.api, seats, table)).status).toBe('free');
    }
  });

  it('INHERIT: each table as the chart says (T1 by seat, T2 as a whole)', async () => {
    const inherit = await createEvent(ctx.api, tablesChartKey);
    await done(ctx.api, inherit, 'book', { objects: ['T1-1', 'T2'] });
    expectError(await action(ctx.api, inherit, 'book', { objects: ['T1'] }), 400, 'OBJECT_NOT_BOOKABLE');
    expectError(await action(ctx.api, inherit, 'book', { objects: ['T2-1'] }), 400, 'OBJECT_NOT_BOOKABLE');
  });

  it('CUSTOM: per table, the other table as the chart says', async () => {
    const custom = await createEvent(ctx.api, tablesChartKey, { tableBookingConfig: { mode: 'CUSTOM', tables: { T1: 'BY_TABLE' } } });
    await done(ctx.api, custom, 'book', { objects: ['T1', 'T2'] });
    expect(await statuses(ctx.api, custom, ['T1', 'T2'])).toEqual({ T1: 'booked', T2: 'booked' });
    expectError(await action(ctx.api, custom, 'book', { objects: ['T1-2'] }), 400, 'OBJECT_NOT_BOOKABLE');

    const custom2 = await createEvent(ctx.api, tablesChartKey, { tableBookingConfig: { mode: 'CUSTOM', tables: { T1: 'BY_SEAT', T2: 'BY_SEAT' } } });
    await done(ctx.api, custom2, 'book', { objects: ['T1-1', 'T2-1'] });
    expectError(await action(ctx.api, custom2, 'book', { objects: ['T2'] }), 400, 'OBJECT_NOT_BOOKABLE');
  });

  it('a refused table seat leaves the rest of the request unbooked', async () => {
    const tables = await createEvent(ctx.api, tablesChartKey, { tableBookingConfig: { mode: 'ALL_BY_TABLE' } });
    expectError(await action(ctx.api, tables, 'book', { objects: ['T2', 'T1-1'] }), 400, 'OBJECT_NOT_BOOKABLE');
    expect((await objectInfo(ctx.api, tables, 'T2')).status).toBe('free');
  });
});

describe('channels', () => {
  let channelEvent: string;
  beforeEach(async () => {
    channelEvent = await createEvent(ctx.api, ctx.chartKey, {
      channels: [
        { key: 'ch1', name: 'Channel 1', color: '#FF0000', index: 1, objects: ['A-1', 'A-2'] },
        { key: 'ch2', name: 'Channel 2', color: '#00FF00', index: 2, objects: ['A-3'] },
      ],
    });
  });

  it('an object in a channel needs channelKeys naming it: 400 OBJECT_IN_CHANNEL otherwise', async () => {
    for (const body of [{ objects: ['A-1'] }, { objects: ['A-1'], channelKeys: ['ch2'] }, { objects: ['A-1'], channelKeys: ['NO_CHANNEL'] }]) {
      expectError(await action(ctx.api, channelEvent, 'book', body), 400, 'OBJECT_IN_CHANNEL');
    }
    expect((await objectInfo(ctx.api, channelEvent, 'A-1')).status).toBe('free');
    await done(ctx.api, channelEvent, 'book', { objects: ['A-1', 'A-3'], channelKeys: ['ch1', 'ch2'] });
    const infos = await objectInfos(ctx.api, channelEvent, ['A-1', 'A-3']);
    expect(infos['A-1']).toMatchObject({ status: 'booked', channel: 'ch1' });
    expect(infos['A-3']).toMatchObject({ status: 'booked', channel: 'ch2' });
  });

  it('objects without a channel are bookable without channelKeys', async () => {
    await done(ctx.api, channelEvent, 'book', { objects: ['B-1'] });
    expect((await objectInfo(ctx.api, channelEvent, 'B-1')).status).toBe('booked');
  });

  it('ignoreChannels: true books regardless of channel', async () => {
    await done(ctx.api, channelEvent, 'book', { objects: ['A-1', 'A-3', 'B-1'], ignoreChannels: true });
    expect(await statuses(ctx.api, channelEvent, ['A-1', 'A-3', 'B-1'])).toEqual({ 'A-1': 'booked', 'A-3': 'booked', 'B-1': 'booked' });
  });

  it('channelKeys without NO_CHANNEL refuse objects without a channel: 400 OBJECT_NOT_IN_CHANNEL', async () => {
    const response = await action(ctx.api, channelEvent, 'book', { objects: ['A-1', 'B-1'], channelKeys: ['ch1'] });
    expectError(response, 400, 'OBJECT_NOT_IN_CHANNEL');
    expect(response.body.errors[0].data.objects).toEqual(['B-1']);
    expect(await statuses(ctx.api, channelEvent, ['A-1', 'B-1'])).toEqual({ 'A-1': 'free', 'B-1': 'free' });
    await done(ctx.api, channelEvent, 'book', { objects: ['A-1', 'B-1'], channelKeys: ['ch1', 'NO_CHANNEL'] });
    expect(await statuses(ctx.api, channelEvent, ['A-1', 'B-1'])).toEqual({ 'A-1': 'booked', 'B-1': 'booked' });
  });

  it('channelKeys together with ignoreChannels → 400 CHANNEL_KEYS_WITH_IGNORE_CHANNELS', async () => {
    const response = await action(ctx.api, channelEvent, 'book', { objects: ['A-1'], channelKeys: ['ch1'], ignoreChannels: true });
    expectError(response, 400, 'CHANNEL_KEYS_WITH_IGNORE_CHANNELS');
    expect((await objectInfo(ctx.api, channelEvent, 'A-1')).status).toBe('free');
  });

  it('release follows the channel rules of book', async () => {
    await done(ctx.api, channelEvent, 'book', { objects: ['A-1'], channelKeys: ['ch1'] });
    expectError(await action(ctx.api, channelEvent, 'release', { objects: ['A-1'] }), 400, 'OBJECT_IN_CHANNEL');
    expect((await objectInfo(ctx.api, channelEvent, 'A-1')).status).toBe('booked');
    await done(ctx.api, channelEvent, 'release', { objects: ['A-1'], channelKeys: ['ch1'] });
    expect((await objectInfo(ctx.api, channelEvent, 'A-1')).status).toBe('free');
  });

  it('a resale object in a channel is bookable without channel keys', async () => {
    await done(ctx.api, channelEvent, 'book', { objects: ['A-1'], ignoreChannels: true });
    await done(ctx.api, channelEvent, 'put-up-for-resale', { objects: ['A-1'], ignoreChannels: true });
    await done(ctx.api, channelEvent, 'book', { objects: ['A-1'] });
    expect((await objectInfo(ctx.api, channelEvent, 'A-1')).status).toBe('booked');
  });
});

describe('sale settings changed after the event was created', () => {
  it('channels replaced later apply to the very next request', async () => {
    await done(ctx.api, event, 'book', { objects: ['B-1'] });
    const replaced = await ctx.api.post(`/events/${event}/channels/replace`, { channels: [{ key: 'late', name: 'Late', objects: ['B-2'] }] });
    expect(replaced.status, replaced.text).toBe(204);
    expectError(await action(ctx.api, event, 'book', { objects: ['B-2'] }), 400, 'OBJECT_IN_CHANNEL');
    await done(ctx.api, event, 'book', { objects: ['B-2'], channelKeys: ['late'] });
    // Releasing an object that is in a channel now follows the channel rules.
    await ctx.api.post(`/events/${event}/channels/replace`, { channels: [{ key: 'late', name: 'Late', objects: ['B-1', 'B-2'] }] });
    expectError(await action(ctx.api, event, 'release', { objects: ['B-1'] }), 400, 'OBJECT_IN_CHANNEL');
    await done(ctx.api, event, 'release', { objects: ['B-1'], channelKeys: ['late'] });
  });

  it('mark-as-not-for-sale applies to the next request; a booked object taken off sale can still be released', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    const marked = await ctx.api.post(`/events/${event}/actions/mark-as-not-for-sale`, { objects: ['A-1', 'A-2'] });
    expect(marked.status, marked.text).toBeOneOf([200, 204]);
    expectError(await action(ctx.api, event, 'book', { objects: ['A-2'] }), 400, 'OBJECT_NOT_FOR_SALE');
    await done(ctx.api, event, 'release', { objects: ['A-1'] });
    expect(await objectInfo(ctx.api, event, 'A-1')).toMatchObject({ status: 'free', forSale: false });
    expectError(await action(ctx.api, event, 'book', { objects: ['A-1'] }), 400, 'OBJECT_NOT_FOR_SALE');
  });
});

describe('event changes seen by the sales flow', () => {
  it('an event key with spaces, slashes and non-ASCII characters works URI-encoded', async () => {
    const key = await createEvent(ctx.api, ctx.chartKey, { eventKey: 'Gala 2026/Ümlaut & co' });
    expect(key).toBe('Gala 2026/Ümlaut & co');
    await done(ctx.api, key, 'book', { objects: ['A-1'] });
    expect((await objectInfo(ctx.api, key, 'A-1')).status).toBe('booked');
  });

  it('a renamed event keeps its objects under the new key; the old key is gone at once', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'], orderId: 'before-rename' });
    const newKey = `${event}-renamed`;
    const renamed = await ctx.api.post(`/events/${encodeURIComponent(event)}`, { eventKey: newKey });
    expect(renamed.status, renamed.text).toBeOneOf([200, 204]);
    expectError(await action(ctx.api, event, 'book', { objects: ['A-2'] }), 404, 'EVENT_NOT_FOUND');
    expectError(await action(ctx.api, newKey, 'book', { objects: ['A-1'] }), 400, 'OBJECT_NOT_FREE');
    expect(await objectInfo(ctx.api, newKey, 'A-1')).toMatchObject({ status: 'booked', orderId: 'before-rename' });
  });

  it('a changed table booking mode applies to the next request', async () => {
    const tables = await createEvent(ctx.api, tablesChartKey, { tableBookingConfig: { mode: 'ALL_BY_SEAT' } });
    expectError(await action(ctx.api, tables, 'book', { objects: ['T1'] }), 400, 'OBJECT_NOT_BOOKABLE');
    const changed = await ctx.api.post(`/events/${encodeURIComponent(tables)}`, { tableBookingConfig: { mode: 'ALL_BY_TABLE' } });
    expect(changed.status, changed.text).toBeOneOf([200, 204]);
    await done(ctx.api, tables, 'book', { objects: ['T1'] });
    expectError(await action(ctx.api, tables, 'book', { objects: ['T2-1'] }), 400, 'OBJECT_NOT_BOOKABLE');
  });

  it('a deleted event answers 404 EVENT_NOT_FOUND at once', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    const deleted = await ctx.api.delete(`/events/${encodeURIComponent(event)}`);
    expect(deleted.status, deleted.text).toBe(204);
    expectError(await action(ctx.api, event, 'book', { objects: ['A-2'] }), 404, 'EVENT_NOT_FOUND');
    // A new event with the same key starts with every object free.
    const again = await createEvent(ctx.api, ctx.chartKey, { eventKey: event });
    expect(await statuses(ctx.api, again, ['A-1', 'A-2'])).toEqual({ 'A-1': 'free', 'A-2': 'free' });
  });
});

describe('for sale config', () => {
  it('an object not for sale cannot be booked: 400 OBJECT_NOT_FOR_SALE, nothing booked', async () => {
    const notForSale = await createEvent(ctx.api, ctx.chartKey, { forSaleConfig: { forSale: false, objects: ['A-1'] } });
    const response = await action(ctx.api, notForSale, 'book', { objects: ['A-2', 'A-1'] });
    expectError(response, 400, 'OBJECT_NOT_FOR_SALE');
    expect(response.body.errors[0].data.objects).toEqual(['A-1']);
    const infos = await objectInfos(ctx.api, notForSale, ['A-1', 'A-2']);
    expect(infos['A-1']).toMatchObject({ status: 'free', forSale: false, isAvailable: false, availabilityReason: 'not_for_sale' });
    expect(infos['A-2']).toMatchObject({ status: 'free', forSale: true });
    await done(ctx.api, notForSale, 'book', { objects: ['A-2'] });
    expectError(await action(ctx.api, notForSale, 'change-object-status', { objects: ['A-1'], status: 'lounge' }), 400, 'OBJECT_NOT_FOR_SALE');
  });

  it('forSale: true lists the only objects for sale', async () => {
    const onlyB1 = await createEvent(ctx.api, ctx.chartKey, { forSaleConfig: { forSale: true, objects: ['B-1'] } });
    await done(ctx.api, onlyB1, 'book', { objects: ['B-1'] });
    expectError(await action(ctx.api, onlyB1, 'book', { objects: ['B-2'] }), 400, 'OBJECT_NOT_FOR_SALE');
  });
});

describe('event groups', () => {
  const group = (body: Record<string, unknown>, expand = true) =>
    ctx.api.post(`/events/groups/actions/change-object-status${expand ? '?expand=objects' : ''}`, body);

  it('an event named twice in a group is changed once, or the group is refused as such (not as "not free")', async () => {
    const response = await group({ events: [event, event], status: 'booked', objects: ['A-1'] });
    if (response.status === 200) {
      expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('booked');
    } else {
      expect(response.status, response.text).toBe(400);
      expect(codes(response), response.text).not.toContain('OBJECT_NOT_FREE');
      expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('free');
    }
  });

  it('an unknown event in the group → 404 EVENT_NOT_FOUND, nothing changed', async () => {
    const response = await group({ events: [event, 'no-such-event'], status: 'booked', objects: ['A-1'] });
    expectError(response, 404, 'EVENT_NOT_FOUND');
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('free');
  });
});

describe('batch', () => {
  const batch = (statusChanges: Record<string, unknown>[], expand = true) =>
    ctx.api.post(`/events/actions/change-object-status${expand ? '?expand=objects' : ''}`, { statusChanges });

  it('applies in order: book then release the same seat in one batch', async () => {
    const response = await batch([
      { event, status: 'booked', objects: ['A-1'], orderId: 'o1' },
      { event, type: 'RELEASE', objects: ['A-1'] },
    ]);
    expect(response.status, response.text).toBe(200);
    expect(response.body.results[0].objects['A-1'].status).toBe('booked');
    expect(response.body.results[1].objects['A-1'].status).toBe('free');
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('free');
  });

  it('applies in order: release a booked seat, then book it for someone else', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'], orderId: 'old' });
    const response = await batch([
      { event, type: 'RELEASE', objects: ['A-1'] },
      { event, status: 'booked', objects: ['A-1'], orderId: 'new' },
    ]);
    expect(response.status, response.text).toBe(200);
    expect(await objectInfo(ctx.api, event, 'A-1')).toMatchObject({ status: 'booked', orderId: 'new' });
  });

  it('a later change that fails undoes nothing because nothing was applied', async () => {
    const response = await batch([
      { event, status: 'booked', objects: ['A-1', 'A-2'], orderId: 'first' },
      { event, status: 'booked', objects: ['A-3', 'A-2'], orderId: 'second' },
    ]);
    expectError(response, 400, 'OBJECT_NOT_FREE');
    expect(response.body.errors[0].data.objects).toEqual(['A-2']);
    expect(await statuses(ctx.api, event, ['A-1', 'A-2', 'A-3'])).toEqual({ 'A-1': 'free', 'A-2': 'free', 'A-3': 'free' });
  });

  it('answers 204 without expand', async () => {
    const response = await batch([{ event, status: 'booked', objects: ['A-1'] }], false);
    expect(response.status, response.text).toBe(204);
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('booked');
  });

  it('an empty batch is refused with GENERAL_ERROR', async () => {
    expectError(await batch([]), 400, 'GENERAL_ERROR');
  });
});

describe('resale listing ids', () => {
  const report = async (key: string, status: string) => {
    const response = await ctx.api.get(`/reports/events/${encodeURIComponent(key)}/byStatus/${status}`);
    expect(response.status, response.text).toBe(200);
    return response.body[status] as Record<string, unknown>[];
  };

  it('put-up-for-resale keeps resaleListingId: object info, expand=objects and reports show it; a hold keeps it; book and release clear it', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1', 'A-2', 'A-3'] });
    const resale = await action(ctx.api, event, 'put-up-for-resale', { objects: ['A-1', 'A-2', 'A-3'], resaleListingId: 'listing-1' }, true);
    expect(resale.status, resale.text).toBe(200);
    expect(resale.body.objects['A-1']).toMatchObject({ status: 'resale', resaleListingId: 'listing-1' });
    expect(await objectInfo(ctx.api, event, 'A-2')).toMatchObject({ status: 'resale', resaleListingId: 'listing-1' });
    expect((await report(event, 'resale')).map((o) => o.resaleListingId)).toEqual(['listing-1', 'listing-1', 'listing-1']);

    const token = (await ctx.api.post('/hold-tokens')).body.holdToken as string;
    await done(ctx.api, event, 'hold', { objects: ['A-3'], holdToken: token });
    expect(await objectInfo(ctx.api, event, 'A-3')).toMatchObject({ status: 'reservedByToken', resaleListingId: 'listing-1' });

    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    await done(ctx.api, event, 'release', { objects: ['A-2', 'A-3'] });
    const infos = await objectInfos(ctx.api, event, ['A-1', 'A-2', 'A-3']);
    expect(infos['A-1']!.status).toBe('booked');
    expect(infos['A-2']!.status).toBe('free');
    for (const label of ['A-1', 'A-2', 'A-3']) expect(infos[label]).not.toHaveProperty('resaleListingId');
  });

  it('refuses a resaleListingId with control characters with 400, changing nothing', async () => {
    await done(ctx.api, event, 'book', { objects: ['C-1'] });
    expectError(await action(ctx.api, event, 'put-up-for-resale', { objects: ['C-1'], resaleListingId: 'a\u0001b' }), 400, 'INVALID_RESALE_LISTING_ID');
    expect((await objectInfo(ctx.api, event, 'C-1')).status).toBe('booked');
  });
});
