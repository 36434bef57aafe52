import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rowsWithoutSections, withSections, withTables } from '../fixtures/drawings.js';
import { action, done, eventPath, expireIn, holdToken, newEvent, objectInfo, objectInfos, type Info } from '../support/events.js';
import { expectError } from '../support/harness.js';
import { useEventPerTest } from '../support/eventPerTest.js';

// Reading an event's objects (docs/seatsio-behaviour.md, "Object info"), their
// extra data ("Changing object status") and the objects of an order ("Object info").

let event: string;
const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key), 'shared');

const ACCESSIBILITY_FALSE = {
  isAccessible: false,
  isCompanionSeat: false,
  hasLiftUpArmrests: false,
  isHearingImpaired: false,
  isSemiAmbulatorySeat: false,
  hasSignLanguageInterpretation: false,
  isPlusSize: false,
  hasRestrictedView: false,
};

describe('object info', () => {
  it('returns exactly the requested labels, keyed by label', async () => {
    const infos = await objectInfos(ctx.api, event, ['A-1', 'B-3', 'GA1']);
    expect(Object.keys(infos).sort()).toEqual(['A-1', 'B-3', 'GA1']);
    expect(infos['B-3']!.label).toBe('B-3');
    expect(infos['B-3']!.status).toBe('free');
    expect(infos['GA1']!.objectType).toBe('generalAdmission');
  });

  it('names a label given twice once', async () => {
    const infos = await objectInfos(ctx.api, event, ['A-2', 'A-2']);
    expect(Object.keys(infos)).toEqual(['A-2']);
  });

  it('a free seat: status free, available', async () => {
    const info = await objectInfo(ctx.api, event, 'A-5');
    expect(info).toMatchObject({ status: 'free', isAvailable: true, availabilityReason: 'available', forSale: true });
    for (const absent of ['holdToken', 'orderId', 'ticketType', 'extraData', 'channel']) expect(info).not.toHaveProperty(absent);
  });

  it('seats.io\'s own sample: A-1 of the sample chart after a custom status', async () => {
    await done(ctx.api, event, 'change-object-status', { objects: ['A-1'], status: 'lolzor' });
    const info = await objectInfo(ctx.api, event, 'A-1');
    expect(info).toEqual({
      label: 'A-1',
      labels: { own: { label: '1', type: 'seat' }, parent: { label: 'A', type: 'row' } },
      ids: { own: '1', parent: 'A' },
      status: 'lolzor',
      categoryKey: '9',
      categoryLabel: 'Cat1',
      forSale: true,
      objectType: 'seat',
      ...ACCESSIBILITY_FALSE,
      rightNeighbour: 'A-2',
      isAvailable: false,
      availabilityReason: 'lolzor',
      distanceToFocalPoint: 98.67842540608864,
      seasonStatusOverriddenQuantity: 0,
    });
    expect(info).not.toHaveProperty('leftNeighbour');
  });

  it('the single-label route answers the same object', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-2'], orderId: 'o-single' });
    const single = await ctx.api.get(eventPath(event, '/objects/A-2'));
    expect(single.status, single.text).toBe(200);
    expect(single.body).toEqual(await objectInfo(ctx.api, event, 'A-2'));
    expect(single.body).toMatchObject({ status: 'booked', orderId: 'o-single', leftNeighbour: 'A-1', rightNeighbour: 'A-3' });
  });

  it('seat properties come from the drawing', async () => {
    const infos = await objectInfos(ctx.api, event, ['A-2', 'A-7', 'B-8', 'D-8']);
    expect(infos['A-2']!.isCompanionSeat).toBe(true);
    expect(infos['A-7']!.isAccessible).toBe(true);
    expect(Object.values(ACCESSIBILITY_FALSE).length).toBe(8);
    for (const field of Object.keys(ACCESSIBILITY_FALSE)) expect(infos['B-8']![field], field).toBe(true);
    expect(infos['D-8']!.entrance).toBe('Gate D');
    expect(infos['D-8']!.rightNeighbour).toBeUndefined();
    expect(infos['D-8']!.leftNeighbour).toBe('D-7');
  });

  it('labels and ids of a seat in a section; labels with spaces are URI-encoded', async () => {
    const sections = (await newEvent(ctx.api, withSections)).key;
    const infos = await objectInfos(ctx.api, sections, ['Section A-B-3']);
    expect(infos['Section A-B-3']).toMatchObject({
      labels: { own: { label: '3', type: 'seat' }, parent: { label: 'B', type: 'row' }, section: 'Section A', entrance: { label: 'Entrance 1' } },
      ids: { own: '3', parent: 'B', section: 'Section A' },
      categoryKey: '2',
      categoryLabel: 'Balcony',
    });
    const single = await ctx.api.get(eventPath(sections, `/objects/${encodeURIComponent('Section A-B-3')}`));
    expect(single.status, single.text).toBe(200);
    expect(single.body.label).toBe('Section A-B-3');
  });

  it('holdToken while held; gone once the token expired (and the seat is free again)', async () => {
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'hold', { objects: ['A-4'], holdToken: token });
    expect(await objectInfo(ctx.api, event, 'A-4')).toMatchObject({
      status: 'reservedByToken',
      holdToken: token,
      isAvailable: false,
      availabilityReason: 'reservedByToken',
    });
    await expireIn(ctx.api, token, 0);
    const after = await objectInfo(ctx.api, event, 'A-4');
    expect(after.status).toBe('free');
    expect(after).not.toHaveProperty('holdToken');
    expect(after.isAvailable).toBe(true);
  });

  it('orderId, ticketType and extraData appear only when set', async () => {
    await done(ctx.api, event, 'book', {
      objects: [{ objectId: 'B-1', ticketType: 'adult', extraData: { name: 'Ann' } }, 'B-2'],
      orderId: 'order-7',
    });
    await done(ctx.api, event, 'book', { objects: ['B-3'] });
    const infos = await objectInfos(ctx.api, event, ['B-1', 'B-2', 'B-3']);
    expect(infos['B-1']).toMatchObject({ orderId: 'order-7', ticketType: 'adult', extraData: { name: 'Ann' } });
    expect(infos['B-2']!.orderId).toBe('order-7');
    expect(infos['B-2']).not.toHaveProperty('ticketType');
    expect(infos['B-2']).not.toHaveProperty('extraData');
    for (const absent of ['orderId', 'ticketType', 'extraData']) expect(infos['B-3']).not.toHaveProperty(absent);
  });

  it('GA: 5 booked and 3 held of 100 → numFree 92, holds by token, status reservedByToken, still available', async () => {
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'GA1', quantity: 5 }] });
    await done(ctx.api, event, 'hold', { objects: [{ objectId: 'GA1', quantity: 3 }], holdToken: token });
    const info = await objectInfo(ctx.api, event, 'GA1');
    expect(info).toMatchObject({
      label: 'GA1',
      objectType: 'generalAdmission',
      status: 'reservedByToken',
      capacity: 100,
      numBooked: 5,
      numHeld: 3,
      numFree: 92,
      numNotForSale: 0,
      bookAsAWhole: false,
      holds: { [token]: { NO_TICKET_TYPE: 3 } },
      forSale: true,
      isAvailable: true,
      availabilityReason: 'available',
      categoryKey: '9',
      categoryLabel: 'Cat1',
    });
    for (const seatOnly of ['isAccessible', 'leftNeighbour', 'holdToken']) expect(info).not.toHaveProperty(seatOnly);
  });

  it('GA: holds of two tokens are listed per token; an expired one drops out', async () => {
    const [first, second] = [await holdToken(ctx.api), await holdToken(ctx.api)];
    await done(ctx.api, event, 'hold', { objects: [{ objectId: 'GA2', quantity: 2 }], holdToken: first });
    await done(ctx.api, event, 'hold', { objects: ['GA2', 'GA2', 'GA2'], holdToken: second });
    expect((await objectInfo(ctx.api, event, 'GA2')).holds).toEqual({ [first]: { NO_TICKET_TYPE: 2 }, [second]: { NO_TICKET_TYPE: 3 } });
    await expireIn(ctx.api, first, 0);
    const info = await objectInfo(ctx.api, event, 'GA2');
    expect(info.holds).toEqual({ [second]: { NO_TICKET_TYPE: 3 } });
    expect(info).toMatchObject({ numHeld: 3, numFree: 97 });
    await expireIn(ctx.api, second, 0);
    const none = await objectInfo(ctx.api, event, 'GA2');
    expect(none).not.toHaveProperty('holds');
    expect(none).toMatchObject({ numHeld: 0, numFree: 100 });
  });

  it('GA: holds are keyed by the ticket type the places were held with (docs/seatsio-behaviour.md, "Object info")', async () => {
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'hold', { objects: [{ objectId: 'GA1', quantity: 2, ticketType: 'adult' }], holdToken: token });
    expect((await objectInfo(ctx.api, event, 'GA1')).holds).toEqual({ [token]: { adult: 2 } });
  });

  it('GA: a full area takes the status and is not available', async () => {
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'GA2', quantity: 100 }] });
    expect(await objectInfo(ctx.api, event, 'GA2')).toMatchObject({
      status: 'booked',
      numBooked: 100,
      numFree: 0,
      isAvailable: false,
      availabilityReason: 'booked',
    });
  });

  it('not for sale after mark-as-not-for-sale: forSale false, availabilityReason not_for_sale', async () => {
    const marked = await ctx.api.post(eventPath(event, '/actions/mark-as-not-for-sale'), { objects: ['A-3'], areaPlaces: { GA1: 30 } });
    expect(marked.status, marked.text).toBe(200);
    const infos = await objectInfos(ctx.api, event, ['A-3', 'A-4', 'GA1']);
    expect(infos['A-3']).toMatchObject({ status: 'free', forSale: false, isAvailable: false, availabilityReason: 'not_for_sale' });
    expect(infos['A-4']).toMatchObject({ forSale: true, isAvailable: true, availabilityReason: 'available' });
    expect(infos['GA1']).toMatchObject({ numNotForSale: 30, numFree: 70, forSale: true, isAvailable: true });
  });

  it('categories follow the event: objectCategories and event-level categories', async () => {
    const updated = await ctx.api.post(eventPath(event), {
      categories: [{ key: 'front', label: 'Front row', color: '#ff0000', accessible: false }],
      objectCategories: { 'A-5': 10, 'A-6': 'front' },
    });
    expect(updated.status, updated.text).toBe(200);
    const infos = await objectInfos(ctx.api, event, ['A-4', 'A-5', 'A-6']);
    expect(infos['A-4']).toMatchObject({ categoryKey: '9', categoryLabel: 'Cat1' });
    expect(infos['A-5']).toMatchObject({ categoryKey: '10', categoryLabel: 'Cat2' });
    expect(infos['A-6']).toMatchObject({ categoryKey: 'front', categoryLabel: 'Front row' });
  });

  it('shows the channel an object is in', async () => {
    const added = await ctx.api.post(eventPath(event, '/channels'), { key: 'members', name: 'Members', objects: ['C-1', 'C-2'] });
    expect(added.status, added.text).toBe(204);
    const infos = await objectInfos(ctx.api, event, ['C-1', 'C-3']);
    expect(infos['C-1']!.channel).toBe('members');
    expect(infos['C-3']).not.toHaveProperty('channel');
  });

  it('tables: a table and its seats both have object info', async () => {
    const tables = (await newEvent(ctx.api, withTables)).key;
    const infos = await objectInfos(ctx.api, tables, ['T1', 'T1-1', 'T2']);
    expect(infos['T1']).toMatchObject({ objectType: 'table', status: 'free', numSeats: 6 });
    expect(infos['T1-1']).toMatchObject({ objectType: 'seat', labels: { parent: { label: 'T1', type: 'table' } } });
  });

  it('no label → an empty map (or a 400), not a server error', async () => {
    const response = await ctx.api.get(eventPath(event, '/objects'));
    expect(response.status, response.text).toBeOneOf([200, 400]);
    if (response.status === 200) expect(response.body).toEqual({});
    else expectError(response, 400, 'GENERAL_ERROR');
  });

  it('unknown label → 404 OBJECT_NOT_FOUND (also among known labels, and on the single route)', async () => {
    expectError(await ctx.api.get(eventPath(event, '/objects?label=A-1&label=Z-99')), 404, 'OBJECT_NOT_FOUND');
    expectError(await ctx.api.get(eventPath(event, '/objects/Z-99')), 404, 'OBJECT_NOT_FOUND');
  });

  it('unknown event → 404 EVENT_NOT_FOUND', async () => {
    expectError(await ctx.api.get(eventPath(randomUUID(), '/objects?label=A-1')), 404, 'EVENT_NOT_FOUND');
    expectError(await ctx.api.get(eventPath(randomUUID(), '/objects/A-1')), 404, 'EVENT_NOT_FOUND');
  });

  it('an event of another workspace is not found', async () => {
    const other = await ctx.freshCompany();
    expectError(await other.api.get(eventPath(event, '/objects?label=A-1')), 404, 'EVENT_NOT_FOUND');
  });

  it('more than 1000 labels → 400 TOO_MANY_OBJECTS; 1000 is fine', async () => {
    const labels = (n: number) => Array.from({ length: n }, (_, i) => `label=X${i}`).join('&');
    expectError(await ctx.api.get(eventPath(event, `/objects?${labels(1001)}`)), 400, 'TOO_MANY_OBJECTS');
    // 1000 distinct labels pass the limit (and then fail on the unknown ones, not the count).
    expectError(await ctx.api.get(eventPath(event, `/objects?${labels(1000)}`)), 404, 'OBJECT_NOT_FOUND');
  });
});

// seats.io leaves `ids.section` out for an object in no section (`ids.parent` is null where
// there is no parent), and names an object's entrance in `labels.entrance` as well as in
// `entrance`, wherever object info appears (docs/seatsio-behaviour.md, "Object info").
describe('ids and labels as seats.io answers them', () => {
  const byLabel = async (key: string) => {
    const response = await ctx.api.get(`/reports/events/${encodeURIComponent(key)}/byLabel`);
    expect(response.status, response.text).toBe(200);
    return response.body as Record<string, Info[]>;
  };

  it('objects in no section: ids {own, parent} without a section key, in object info, book, hold, best available and reports', async () => {
    const a1 = { own: '1', parent: 'A' };
    const infos = await objectInfos(ctx.api, event, ['A-1', 'GA1', 'D-8']);
    expect(infos['A-1']!.ids).toStrictEqual(a1);
    expect(infos['GA1']!.ids).toStrictEqual({ own: 'GA1', parent: null });
    expect(infos['A-1']!.labels).toStrictEqual({ own: { label: '1', type: 'seat' }, parent: { label: 'A', type: 'row' } });
    expect(infos['A-1']).not.toHaveProperty('section');

    const booked = await action(ctx.api, event, 'book', { objects: ['A-1'] }, true);
    expect(booked.status, booked.text).toBe(200);
    expect(booked.body.objects['A-1'].ids).toStrictEqual(a1);
    const held = await action(ctx.api, event, 'hold', { objects: ['C-1'], holdToken: await holdToken(ctx.api) }, true);
    expect(held.status, held.text).toBe(200);
    expect(held.body.objects['C-1'].ids).toStrictEqual({ own: '1', parent: 'C' });
    const best = await action(ctx.api, event, 'book', { bestAvailable: { number: 2 } });
    expect(best.status, best.text).toBe(200);
    for (const label of best.body.objects as string[]) {
      expect(Object.keys(best.body.objectDetails[label].ids), label).toEqual(['own', 'parent']);
    }

    const report = await byLabel(event);
    expect(report['A-1']![0]!.ids).toStrictEqual(a1);
    expect(report['GA1']![0]!.ids).toStrictEqual({ own: 'GA1', parent: null });
    for (const [label, [item]] of Object.entries(report)) expect(item!.ids, label).not.toHaveProperty('section');
  });

  it('objects in a section keep ids.section and carry labels.entrance {label} beside entrance', async () => {
    const sections = (await newEvent(ctx.api, withSections)).key;
    const expected = {
      labels: { own: { label: '1', type: 'seat' }, parent: { label: 'A', type: 'row' }, section: 'Section A', entrance: { label: 'Entrance 1' } },
      ids: { own: '1', parent: 'A', section: 'Section A' },
      section: 'Section A',
      entrance: 'Entrance 1',
    };
    expect(await objectInfo(ctx.api, sections, 'Section A-A-1')).toMatchObject(expected);
    const booked = await action(ctx.api, sections, 'book', { objects: ['Section A-A-1'] }, true);
    expect(booked.status, booked.text).toBe(200);
    expect(booked.body.objects['Section A-A-1'].labels).toStrictEqual(expected.labels);
    expect(booked.body.objects['Section A-A-1'].ids).toStrictEqual(expected.ids);

    // A seat with an entrance of its own, and a GA area taking its section's.
    const infos = await objectInfos(ctx.api, sections, ['Section A-B-1', 'Section B-Standing']);
    expect(infos['Section A-B-1']).toMatchObject({ entrance: 'Door 3', labels: { entrance: { label: 'Door 3' } } });
    expect(infos['Section B-Standing']!.labels).toStrictEqual({ own: { label: 'Standing', type: 'generalAdmission' }, section: 'Section B', entrance: { label: 'Entrance 2' } });
    expect(infos['Section B-Standing']!.ids).toStrictEqual({ own: 'Standing', parent: null, section: 'Section B' });

    const best = await action(ctx.api, sections, 'book', { bestAvailable: { number: 1, sections: ['Section B'], categories: [2] } });
    expect(best.status, best.text).toBe(200);
    const [picked] = best.body.objects as string[];
    expect(best.body.objectDetails[picked!]).toMatchObject({ section: 'Section B', entrance: 'Entrance 2', labels: { section: 'Section B', entrance: { label: 'Entrance 2' } }, ids: { section: 'Section B' } });

    const report = await byLabel(sections);
    expect(report['Section A-A-1']![0]).toMatchObject(expected);
    expect(report['Section A-B-1']![0]!.labels.entrance).toEqual({ label: 'Door 3' });
  });

  it('an object without an entrance has neither entrance nor labels.entrance', async () => {
    const info = await objectInfo(ctx.api, event, 'D-7');
    expect(info).not.toHaveProperty('entrance');
    expect(info.labels).not.toHaveProperty('entrance');
    expect((await objectInfo(ctx.api, event, 'D-8')).labels.entrance).toEqual({ label: 'Gate D' });
  });
});

describe('extra data', () => {
  const setOne = (label: string, extraData: unknown, key = event) =>
    ctx.api.post(eventPath(key, `/objects/${encodeURIComponent(label)}/actions/update-extra-data`), { extraData });
  const setMany = (extraData: unknown, key = event) => ctx.api.post(eventPath(key, '/actions/update-extra-data'), { extraData });

  it('sets, then overwrites (replaces, not merges) the extra data of one object', async () => {
    const set = await setOne('A-1', { name: 'Ann', seat: { row: 'A' } });
    expect(set.status, set.text).toBe(204);
    expect((await objectInfo(ctx.api, event, 'A-1')).extraData).toEqual({ name: 'Ann', seat: { row: 'A' } });
    expect((await setOne('A-1', { name: 'Bob' })).status).toBe(204);
    expect((await objectInfo(ctx.api, event, 'A-1')).extraData).toEqual({ name: 'Bob' });
    // Setting it does not change the status.
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('free');
  });

  it('sets the extra data of several objects at once, a GA area included', async () => {
    const response = await setMany({ 'A-1': { a: 1 }, 'B-2': { b: [1, 2] }, GA1: { area: true } });
    expect(response.status, response.text).toBe(204);
    const infos = await objectInfos(ctx.api, event, ['A-1', 'B-2', 'GA1', 'A-2']);
    expect(infos['A-1']!.extraData).toEqual({ a: 1 });
    expect(infos['B-2']!.extraData).toEqual({ b: [1, 2] });
    expect(infos['GA1']!.extraData).toEqual({ area: true });
    expect(infos['A-2']).not.toHaveProperty('extraData');
  });

  it('extraData that is not an object → 400 GENERAL_ERROR, nothing stored', async () => {
    for (const bad of ['text', 42, null, true]) {
      expectError(await setOne('A-1', bad), 400, 'GENERAL_ERROR');
      expectError(await setMany({ 'A-1': bad }), 400, 'GENERAL_ERROR');
    }
    expectError(await ctx.api.post(eventPath(event, '/objects/A-1/actions/update-extra-data'), {}), 400, 'GENERAL_ERROR');
    expect(await objectInfo(ctx.api, event, 'A-1')).not.toHaveProperty('extraData');
  });

  it('an array is not an object → 400 GENERAL_ERROR', async () => {
    expectError(await setOne('A-1', [1, 2]), 400, 'GENERAL_ERROR');
    expectError(await setMany({ 'A-1': ['x'] }), 400, 'GENERAL_ERROR');
    expect(await objectInfo(ctx.api, event, 'A-1')).not.toHaveProperty('extraData');
  });

  it('unknown label → 404 OBJECT_NOT_FOUND; a multi-label request changes none of its labels', async () => {
    expect((await setOne('A-1', { before: true })).status).toBe(204);
    expectError(await setOne('Z-99', { x: 1 }), 404, 'OBJECT_NOT_FOUND');
    expectError(await setMany({ 'A-1': { after: true }, 'Z-99': { x: 1 }, 'A-2': { x: 2 } }), 404, 'OBJECT_NOT_FOUND');
    const infos = await objectInfos(ctx.api, event, ['A-1', 'A-2']);
    expect(infos['A-1']!.extraData).toEqual({ before: true });
    expect(infos['A-2']).not.toHaveProperty('extraData');
  });

  it('unknown event → 404 EVENT_NOT_FOUND', async () => {
    expectError(await setOne('A-1', { x: 1 }, randomUUID()), 404, 'EVENT_NOT_FOUND');
    expectError(await setMany({ 'A-1': { x: 1 } }, randomUUID()), 404, 'EVENT_NOT_FOUND');
  });

  it('a later book without keepExtraData clears it; with keepExtraData: true keeps it', async () => {
    expect((await setMany({ 'C-1': { keep: 'me' }, 'C-2': { drop: 'me' }, 'C-3': { drop: 'me too' } })).status).toBe(204);
    await done(ctx.api, event, 'book', { objects: ['C-1'], keepExtraData: true });
    await done(ctx.api, event, 'book', { objects: ['C-2'] });
    await done(ctx.api, event, 'book', { objects: ['C-3'], keepExtraData: false });
    const infos = await objectInfos(ctx.api, event, ['C-1', 'C-2', 'C-3']);
    expect(infos['C-1']).toMatchObject({ status: 'booked', extraData: { keep: 'me' } });
    expect(infos['C-2']!.status).toBe('booked');
    expect(infos['C-2']).not.toHaveProperty('extraData');
    expect(infos['C-3']).not.toHaveProperty('extraData');
  });

  it('extra data set on a booked object survives until the next status change', async () => {
    await done(ctx.api, event, 'book', { objects: ['D-1'] });
    expect((await setOne('D-1', { seated: 'yes' })).status).toBe(204);
    expect(await objectInfo(ctx.api, event, 'D-1')).toMatchObject({ status: 'booked', extraData: { seated: 'yes' } });
    await done(ctx.api, event, 'release', { objects: ['D-1'] });
    expect(await objectInfo(ctx.api, event, 'D-1')).not.toHaveProperty('extraData');
  });

  it('more than 1000 labels at once → 400 TOO_MANY_OBJECTS, nothing stored', async () => {
    const many = Object.fromEntries(['A-1', ...Array.from({ length: 1000 }, (_, i) => `X${i}`)].map((label) => [label, { n: 1 }]));
    expectError(await setMany(many), 400, 'TOO_MANY_OBJECTS');
    expect(await objectInfo(ctx.api, event, 'A-1')).not.toHaveProperty('extraData');
  });

  it('extra data over 10,000 bytes → 400 INVALID_EXTRA_DATA', async () => {
    expectError(await setOne('A-1', { text: 'x'.repeat(10_001) }), 400, 'INVALID_EXTRA_DATA');
    expect(await objectInfo(ctx.api, event, 'A-1')).not.toHaveProperty('extraData');
  });
});

describe('objects of an order', () => {
  const order = async (id: string, key = event) => {
    const response = await ctx.api.get(eventPath(key, `/orders/${encodeURIComponent(id)}`));
    expect(response.status, response.text).toBe(200);
    return response.body as string[];
  };

  it('labels booked under one order id across two calls come back sorted', async () => {
    await done(ctx.api, event, 'book', { objects: ['B-1', 'A-3'], orderId: 'o1' });
    await done(ctx.api, event, 'book', { objects: ['A-1', 'A-2'], orderId: 'o1' });
    await done(ctx.api, event, 'book', { objects: ['A-4'], orderId: 'o2' });
    await done(ctx.api, event, 'book', { objects: ['A-5'] });
    expect(await order('o1')).toEqual(['A-1', 'A-2', 'A-3', 'B-1']);
    expect(await order('o2')).toEqual(['A-4']);
  });

  it('objects given a custom status under an order id are in it too', async () => {
    await done(ctx.api, event, 'change-object-status', { objects: ['C-4'], status: 'sold-at-door', orderId: 'door/1' });
    expect(await order('door/1')).toEqual(['C-4']);
  });

  it('after a release without orderId the objects are no longer in the order', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-6', 'A-7', 'A-8'], orderId: 'o3' });
    await done(ctx.api, event, 'release', { objects: ['A-6', 'A-8'] });
    expect(await order('o3')).toEqual(['A-7']);
  });

  it('a release carrying an order id takes the objects out of their order and into its own', async () => {
    await done(ctx.api, event, 'book', { objects: ['B-6', 'B-7', 'B-8'], orderId: 'o4' });
    await done(ctx.api, event, 'release', { objects: ['B-6'], orderId: 'o4' });
    await done(ctx.api, event, 'release', { objects: ['B-7'], orderId: 'o5' });
    expect(await order('o4')).toEqual(['B-6', 'B-8']);
    expect(await order('o5')).toEqual(['B-7']);
    const infos = await objectInfos(ctx.api, event, ['B-6', 'B-7', 'B-8']);
    expect(infos['B-6']).toMatchObject({ status: 'free', orderId: 'o4' });
    expect(infos['B-7']).toMatchObject({ status: 'free', orderId: 'o5' });
    expect(infos['B-8']).toMatchObject({ status: 'booked', orderId: 'o4' });
    // Free with an order id: booked again under another order, it leaves the release's.
    await done(ctx.api, event, 'book', { objects: ['B-7'], orderId: 'o6' });
    expect(await order('o5')).toEqual([]);
    expect(await order('o6')).toEqual(['B-7']);
    // A release without an order id leaves the object in no order.
    await done(ctx.api, event, 'release', { objects: ['B-7'] });
    expect(await order('o6')).toEqual([]);
    expect(await objectInfo(ctx.api, event, 'B-7')).not.toHaveProperty('orderId');
  });

  it('an order id no object has → []', async () => {
    expect(await order('never-used')).toEqual([]);
  });

  it('orders are per event', async () => {
    const other = (await newEvent(ctx.api, rowsWithoutSections)).key;
    await done(ctx.api, other, 'book', { objects: ['D-1'], orderId: 'shared' });
    await done(ctx.api, event, 'book', { objects: ['D-2'], orderId: 'shared' });
    expect(await order('shared')).toEqual(['D-2']);
    expect(await order('shared', other)).toEqual(['D-1']);
  });

  it('unknown event → 404 EVENT_NOT_FOUND', async () => {
    expectError(await ctx.api.get(eventPath(randomUUID(), '/orders/o1')), 404, 'EVENT_NOT_FOUND');
  });
});
