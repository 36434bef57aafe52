import { describe, expect, it } from 'vitest';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { action, createEvent, done, objectInfo, objectInfos } from '../support/events.js';
import { expectError } from '../support/harness.js';
import { useEventPerTest } from '../support/eventPerTest.js';

// GA areas on the priority lane (docs/seatsio-behaviour.md, "Object statuses":
// one counter of non-free places): quantities, repeated labels, capacity, custom statuses sharing the
// counter, the status of a full area, release with a quantity. GA holds: holds.test.ts.

let event: string;
const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key), 'shared');

const ga = (quantity: number, objectId = 'GA1') => ({ objectId, quantity });

describe('booking places', () => {
  it('a free area shows all its places free', async () => {
    expect(await objectInfo(ctx.api, event, 'GA1')).toMatchObject({
      label: 'GA1',
      objectType: 'generalAdmission',
      status: 'free',
      capacity: 100,
      numBooked: 0,
      numHeld: 0,
      numFree: 100,
      numNotForSale: 0,
      bookAsAWhole: false,
      forSale: true,
      isAvailable: true,
      availabilityReason: 'available',
    });
  });

  it('quantity adds to numBooked; the area stays free until full', async () => {
    const response = await action(ctx.api, event, 'book', { objects: [ga(5)] }, true);
    expect(response.status, response.text).toBe(200);
    expect(response.body.objects.GA1).toMatchObject({ status: 'free', numBooked: 5, numFree: 95, isAvailable: true });
    await done(ctx.api, event, 'book', { objects: [ga(7)] });
    expect(await objectInfo(ctx.api, event, 'GA1')).toMatchObject({ status: 'free', numBooked: 12, numFree: 88 });
  });

  it('a label repeated n times books n places, added to quantities of the same area', async () => {
    await done(ctx.api, event, 'book', { objects: ['GA1', 'GA1', 'GA1'] });
    expect(await objectInfo(ctx.api, event, 'GA1')).toMatchObject({ numBooked: 3, numFree: 97 });
    await done(ctx.api, event, 'book', { objects: ['GA1', ga(4), { objectId: 'GA1' }, 'GA2'] });
    const infos = await objectInfos(ctx.api, event, ['GA1', 'GA2']);
    expect(infos.GA1).toMatchObject({ numBooked: 9, numFree: 91 });
    expect(infos.GA2).toMatchObject({ numBooked: 1, numFree: 99 });
  });

  it('the expanded response lists an area once however often it was named', async () => {
    const response = await action(ctx.api, event, 'book', { objects: ['GA1', 'GA1', 'A-1'] }, true);
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body.objects).sort()).toEqual(['A-1', 'GA1']);
    expect(response.body.objects.GA1.numBooked).toBe(2);
  });

  it('never beyond the free places: 400 NOT_ENOUGH_FREE_PLACES, nothing of the request applied', async () => {
    await done(ctx.api, event, 'book', { objects: [ga(98)] });
    const response = await action(ctx.api, event, 'book', { objects: ['A-1', ga(3)] });
    expectError(response, 400, 'NOT_ENOUGH_FREE_PLACES');
    expect(response.body.errors[0].data.objects).toEqual(['GA1']);
    const infos = await objectInfos(ctx.api, event, ['A-1', 'GA1']);
    expect(infos['A-1']!.status).toBe('free');
    expect(infos.GA1).toMatchObject({ numBooked: 98, numFree: 2 });
    await done(ctx.api, event, 'book', { objects: [ga(2)] });
    expect(await objectInfo(ctx.api, event, 'GA1')).toMatchObject({ numBooked: 100, numFree: 0 });
    expectError(await action(ctx.api, event, 'book', { objects: ['GA1'] }), 400, 'NOT_ENOUGH_FREE_PLACES');
  });

  it('never beyond the capacity: 400 INVALID_QUANTITY, by quantity or by repeated labels', async () => {
    expectError(await action(ctx.api, event, 'book', { objects: [ga(101)] }), 400, 'INVALID_QUANTITY');
    expectError(await action(ctx.api, event, 'book', { objects: [ga(60), ga(41)] }), 400, 'INVALID_QUANTITY');
    expectError(await action(ctx.api, event, 'book', { objects: Array.from({ length: 101 }, () => 'GA1') }), 400, 'INVALID_QUANTITY');
    expect(await objectInfo(ctx.api, event, 'GA1')).toMatchObject({ numBooked: 0, numFree: 100 });
  });

  it('a fully booked area shows booked and is not available', async () => {
    await done(ctx.api, event, 'book', { objects: [ga(100)] });
    expect(await objectInfo(ctx.api, event, 'GA1')).toMatchObject({
      status: 'booked',
      numBooked: 100,
      numFree: 0,
      isAvailable: false,
      availabilityReason: 'booked',
    });
  });

  it('in a batch later changes see the places earlier ones took', async () => {
    const tooMany = await ctx.api.post('/events/actions/change-object-status', {
      statusChanges: [
        { event, status: 'booked', objects: [ga(60)] },
        { event, status: 'booked', objects: [ga(50)] },
      ],
    });
    expectError(tooMany, 400, 'NOT_ENOUGH_FREE_PLACES');
    expect((await objectInfo(ctx.api, event, 'GA1')).numBooked).toBe(0);
    const fits = await ctx.api.post('/events/actions/change-object-status?expand=objects', {
      statusChanges: [
        { event, status: 'booked', objects: [ga(60)] },
        { event, type: 'RELEASE', objects: [ga(10)] },
        { event, status: 'booked', objects: [ga(50)] },
      ],
    });
    expect(fits.status, fits.text).toBe(200);
    expect(await objectInfo(ctx.api, event, 'GA1')).toMatchObject({ status: 'booked', numBooked: 100, numFree: 0 });
  });

  it('stores extra data on the area', async () => {
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'GA1', quantity: 2, extraData: { party: 'Smith' } }] });
    expect((await objectInfo(ctx.api, event, 'GA1')).extraData).toEqual({ party: 'Smith' });
  });
});

describe('custom statuses on areas', () => {
  it('add to the same non-free counter as bookings: 5 custom + 5 booked = 10', async () => {
    await done(ctx.api, event, 'change-object-status', { objects: [ga(5)], status: 'comp' });
    await done(ctx.api, event, 'book', { objects: [ga(5)] });
    expect(await objectInfo(ctx.api, event, 'GA1')).toMatchObject({ status: 'free', numBooked: 10, numFree: 90 });
  });

  it('a full area shows the last status set', async () => {
    await done(ctx.api, event, 'book', { objects: [ga(95)] });
    await done(ctx.api, event, 'change-object-status', { objects: [ga(5)], status: 'comp' });
    expect(await objectInfo(ctx.api, event, 'GA1')).toMatchObject({ status: 'comp', numFree: 0, isAvailable: false, availabilityReason: 'comp' });

    await done(ctx.api, event, 'change-object-status', { objects: [ga(100, 'GA2')], status: 'closed' });
    expect(await objectInfo(ctx.api, event, 'GA2')).toMatchObject({ status: 'closed', numBooked: 100, numFree: 0 });
  });

  it('allowedPreviousStatuses sees a partly booked area as free and a full one as its status', async () => {
    await done(ctx.api, event, 'book', { objects: [ga(5)] });
    await done(ctx.api, event, 'change-object-status', { objects: [ga(5)], status: 'comp', allowedPreviousStatuses: ['free'] });
    await done(ctx.api, event, 'book', { objects: [ga(90)] });
    const response = await action(ctx.api, event, 'release', { objects: [ga(1)], allowedPreviousStatuses: ['free'] });
    expectError(response, 400, 'ILLEGAL_STATUS_CHANGE');
    expect(response.body.errors).toHaveLength(1);
    expect((await objectInfo(ctx.api, event, 'GA1')).numBooked).toBe(100);
  });
});

describe('releasing places', () => {
  it('release with a quantity gives that many places back', async () => {
    await done(ctx.api, event, 'book', { objects: [ga(10)] });
    const response = await action(ctx.api, event, 'release', { objects: [ga(4)] }, true);
    expect(response.status, response.text).toBe(200);
    expect(response.body.objects.GA1).toMatchObject({ numBooked: 6, numFree: 94 });
    await done(ctx.api, event, 'release', { objects: ['GA1', 'GA1'] });
    expect(await objectInfo(ctx.api, event, 'GA1')).toMatchObject({ numBooked: 4, numFree: 96 });
  });

  it('a full area is free again after a release', async () => {
    await done(ctx.api, event, 'book', { objects: [ga(100)] });
    await done(ctx.api, event, 'release', { objects: [ga(1)] });
    expect(await objectInfo(ctx.api, event, 'GA1')).toMatchObject({ status: 'free', numBooked: 99, numFree: 1, isAvailable: true });
  });

  it('releasing more than is booked → 400 OBJECT_NOT_RELEASABLE, nothing released', async () => {
    expectError(await action(ctx.api, event, 'release', { objects: ['GA1'] }), 400, 'OBJECT_NOT_RELEASABLE');
    await done(ctx.api, event, 'book', { objects: [ga(3)] });
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    const response = await action(ctx.api, event, 'release', { objects: ['A-1', ga(4)] });
    expectError(response, 400, 'OBJECT_NOT_RELEASABLE');
    expect(response.body.errors[0].data.objects).toEqual(['GA1']);
    const infos = await objectInfos(ctx.api, event, ['A-1', 'GA1']);
    expect(infos['A-1']!.status).toBe('booked');
    expect(infos.GA1!.numBooked).toBe(3);
  });

  it('releasing custom-status places frees them too (one counter)', async () => {
    await done(ctx.api, event, 'change-object-status', { objects: [ga(100)], status: 'closed' });
    await done(ctx.api, event, 'release', { objects: [ga(100)] });
    expect(await objectInfo(ctx.api, event, 'GA1')).toMatchObject({ status: 'free', numBooked: 0, numFree: 100 });
  });
});

describe('channels and for sale config on areas', () => {
  it('an area in a channel needs channelKeys naming it, or ignoreChannels', async () => {
    const channelled = await createEvent(ctx.api, ctx.chartKey, { channels: [{ key: 'ga', name: 'GA channel', objects: ['GA1'] }] });
    expectError(await action(ctx.api, channelled, 'book', { objects: [ga(2)] }), 400, 'OBJECT_IN_CHANNEL');
    expect((await objectInfo(ctx.api, channelled, 'GA1')).numBooked).toBe(0);
    await done(ctx.api, channelled, 'book', { objects: [ga(2)], channelKeys: ['ga'] });
    await done(ctx.api, channelled, 'book', { objects: [ga(3)], ignoreChannels: true });
    expect(await objectInfo(ctx.api, channelled, 'GA1')).toMatchObject({ numBooked: 5, channel: 'ga' });
  });

  it('places of an area assigned to a channel (areaPlaces) are only for that channel', async () => {
    const channelled = await createEvent(ctx.api, ctx.chartKey, { channels: [{ key: 'vip', name: 'VIP', areaPlaces: { GA2: 10 } }] });
    // 90 places have no channel: 91 without channel keys is too many.
    const response = await action(ctx.api, channelled, 'book', { objects: [ga(91, 'GA2')] });
    expect(response.status, response.text).toBe(400);
    expect((await objectInfo(ctx.api, channelled, 'GA2')).numBooked).toBe(0);
    await done(ctx.api, channelled, 'book', { objects: [ga(90, 'GA2')] });
    await done(ctx.api, channelled, 'book', { objects: [ga(10, 'GA2')], channelKeys: ['vip'] });
    expect((await objectInfo(ctx.api, channelled, 'GA2')).numBooked).toBe(100);
  });

  it('places not for sale are not bookable', async () => {
    const partly = await createEvent(ctx.api, ctx.chartKey, { forSaleConfig: { forSale: false, areaPlaces: { GA1: 90 } } });
    expect(await objectInfo(ctx.api, partly, 'GA1')).toMatchObject({ numNotForSale: 90, numFree: 10, forSale: true });
    expectError(await action(ctx.api, partly, 'book', { objects: [ga(11)] }), 400, 'NOT_ENOUGH_FREE_PLACES');
    await done(ctx.api, partly, 'book', { objects: [ga(10)] });
    expect(await objectInfo(ctx.api, partly, 'GA1')).toMatchObject({ numBooked: 10, numFree: 0, isAvailable: false });
  });

  it('an area wholly not for sale cannot be booked', async () => {
    const closed = await createEvent(ctx.api, ctx.chartKey, { forSaleConfig: { forSale: false, objects: ['GA1'] } });
    expect(await objectInfo(ctx.api, closed, 'GA1')).toMatchObject({ numNotForSale: 100, numFree: 0, forSale: false, availabilityReason: 'not_for_sale' });
    const response = await action(ctx.api, closed, 'book', { objects: [ga(1)] });
    expect(response.status, response.text).toBe(400);
    expect(response.body.errors[0].code).toBeOneOf(['OBJECT_NOT_FOR_SALE', 'NOT_ENOUGH_FREE_PLACES']);
    expect((await objectInfo(ctx.api, closed, 'GA1')).numBooked).toBe(0);
  });
});
