import { describe, expect, it } from 'vitest';
import { generatedDrawing, rowsWithoutSections } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { action, createEvent, objectInfos, type Action } from '../support/events.js';
import { call, expectError, type Response } from '../support/harness.js';
import { useEventPerTest } from '../support/eventPerTest.js';
import { FIELD_SEPARATOR } from '../../src/domain/objectStates.js';

// Bad input on the priority lane: every refusal has its own code (src/domain/
// statusChangeRequest.ts, src/inventory/statusChanges.ts, schema checks → GENERAL_ERROR)
// and changes nothing.

let event: string;
const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key), 'shared');

const WATCHED = ['A-1', 'A-2', 'B-1', 'GA1'];

/** Nothing of the event changed: the watched objects are as a fresh event has them. */
async function expectUnchanged(eventKey = event): Promise<void> {
  const infos = await objectInfos(ctx.api, eventKey, WATCHED);
  for (const label of WATCHED) {
    expect(infos[label]!.status, label).toBe('free');
    expect(infos[label]!.extraData, label).toBeUndefined();
    expect(infos[label]!.orderId, label).toBeUndefined();
  }
  expect(infos.GA1).toMatchObject({ numBooked: 0, numHeld: 0, numFree: 100 });
}

async function refused(response: Response, status: number, code: string): Promise<void> {
  expectError(response, status, code);
  await expectUnchanged();
}

describe('objects', () => {
  it('an unknown label → 400 OBJECT_NOT_FOUND naming it', async () => {
    const response = await action(ctx.api, event, 'book', { objects: ['A-1', 'Z-99'], orderId: 'o' });
    await refused(response, 400, 'OBJECT_NOT_FOUND');
    expect(response.body.errors[0].message).toContain('Z-99');
    await refused(await action(ctx.api, event, 'book', { objects: [{ objectId: 'A-1' }, { objectId: 'a-1' }] }), 400, 'OBJECT_NOT_FOUND');
    await refused(await action(ctx.api, event, 'release', { objects: ['nope'] }), 400, 'OBJECT_NOT_FOUND');
  });

  it('a label of a row or section, not a bookable object → 400 OBJECT_NOT_FOUND', async () => {
    await refused(await action(ctx.api, event, 'book', { objects: ['A-1', 'A'] }), 400, 'OBJECT_NOT_FOUND');
  });

  it('no objects → 400 NO_OBJECTS', async () => {
    for (const name of ['book', 'hold', 'release', 'change-object-status'] as Action[]) {
      const response = await action(ctx.api, event, name, { objects: [], status: 'x', holdToken: 'whatever' });
      expectError(response, 400, 'NO_OBJECTS');
    }
    await expectUnchanged();
  });

  it('more than 1000 objects → 400 TOO_MANY_OBJECTS', async () => {
    const objects = ['A-1', ...Array.from({ length: 1000 }, (_, i) => `X-${i}`)];
    await refused(await action(ctx.api, event, 'book', { objects }), 400, 'TOO_MANY_OBJECTS');
  });

  it('exactly 1000 objects are accepted', async () => {
    const big = await uploadDrawing(ctx.api, generatedDrawing({ sections: 0, rowsPerSection: 10, seatsPerRow: 100 }));
    const bigEvent = await createEvent(ctx.api, big.key);
    const labels = Array.from({ length: 1000 }, (_, i) => `${String.fromCharCode(65 + Math.floor(i / 100))}-${(i % 100) + 1}`);
    const response = await action(ctx.api, bigEvent, 'book', { objects: labels });
    expect(response.status, response.text).toBe(204);
    const infos = await objectInfos(ctx.api, bigEvent, [labels[0]!, labels[999]!]);
    expect(infos[labels[0]!]!.status).toBe('booked');
    expect(infos[labels[999]!]!.status).toBe('booked');
  });

  it('a seat named twice → 400 DUPLICATE_OBJECT', async () => {
    await refused(await action(ctx.api, event, 'book', { objects: ['A-1', 'A-2', 'A-1'] }), 400, 'DUPLICATE_OBJECT');
    await refused(await action(ctx.api, event, 'book', { objects: ['A-1', { objectId: 'A-1', ticketType: 'adult' }] }), 400, 'DUPLICATE_OBJECT');
  });
});

describe('quantities', () => {
  it('quantity ≤ 0 or not a whole number → 400 INVALID_QUANTITY', async () => {
    for (const quantity of [0, -1, 1.5]) {
      await refused(await action(ctx.api, event, 'book', { objects: ['A-1', { objectId: 'GA1', quantity }] }), 400, 'INVALID_QUANTITY');
    }
  });

  it('quantity on a seat → 400 QUANTITY_NOT_ALLOWED', async () => {
    await refused(await action(ctx.api, event, 'book', { objects: ['GA1', { objectId: 'A-1', quantity: 1 }] }), 400, 'QUANTITY_NOT_ALLOWED');
  });

  it('quantity that is not a number → 400 GENERAL_ERROR', async () => {
    await refused(await action(ctx.api, event, 'book', { objects: [{ objectId: 'GA1', quantity: '2' }] }), 400, 'GENERAL_ERROR');
  });
});

describe('statuses', () => {
  it('an empty, blank or missing status → 400 INVALID_STATUS', async () => {
    for (const body of [{ status: '' }, { status: '   ' }, {}]) {
      await refused(await action(ctx.api, event, 'change-object-status', { objects: ['A-1'], ...body }), 400, 'INVALID_STATUS');
    }
  });

  it('a status over 100 characters → 400 INVALID_STATUS', async () => {
    await refused(await action(ctx.api, event, 'change-object-status', { objects: ['A-1'], status: 's'.repeat(101) }), 400, 'INVALID_STATUS');
  });

  it('a status that is not a string → 400 GENERAL_ERROR', async () => {
    await refused(await action(ctx.api, event, 'change-object-status', { objects: ['A-1'], status: 7 }), 400, 'GENERAL_ERROR');
  });

  it('a group or batch change without a status → 400 INVALID_STATUS', async () => {
    await refused(await ctx.api.post('/events/groups/actions/change-object-status', { events: [event], objects: ['A-1'] }), 400, 'INVALID_STATUS');
    await refused(
      await ctx.api.post('/events/actions/change-object-status', { statusChanges: [{ event, status: 'booked', objects: ['A-2'] }, { event, objects: ['A-1'] }] }),
      400,
      'INVALID_STATUS',
    );
  });
});

describe('extra data', () => {
  it('extra data that is not a JSON object → 400 INVALID_EXTRA_DATA', async () => {
    for (const extraData of ['text', [1, 2], 42, true]) {
      await refused(await action(ctx.api, event, 'book', { objects: ['A-2', { objectId: 'A-1', extraData }] }), 400, 'INVALID_EXTRA_DATA');
    }
  });

  it('extra data over 10,000 bytes → 400 INVALID_EXTRA_DATA', async () => {
    await refused(await action(ctx.api, event, 'book', { objects: [{ objectId: 'A-1', extraData: { text: 'x'.repeat(10_000) } }] }), 400, 'INVALID_EXTRA_DATA');
  });

  it('extra data null is the same as none', async () => {
    const response = await action(ctx.api, event, 'book', { objects: [{ objectId: 'A-1', extraData: null }] }, true);
    expect(response.status, response.text).toBe(200);
    expect(response.body.objects['A-1'].extraData).toBeUndefined();
  });
});

describe('strings stored in object records', () => {
  // Stored states join their fields with U+001F (lua/includes/constants.lua): a client
  // string that contains it must be refused or kept whole, never split into the following fields.
  const US = FIELD_SEPARATOR;

  it('an orderId or ticketType containing U+001F is refused or stored verbatim; release still frees', async () => {
    const response = await action(ctx.api, event, 'book', { objects: [{ objectId: 'A-1', ticketType: `adult${US}resale` }], orderId: `o${US}vip` }, true);
    if (response.status === 400) {
      await expectUnchanged();
      return;
    }
    expect(response.status, response.text).toBe(200);
    expect(await objectInfos(ctx.api, event, ['A-1'])).toMatchObject({ 'A-1': { status: 'booked', orderId: `o${US}vip`, ticketType: `adult${US}resale` } });
    expect((await action(ctx.api, event, 'release', { objects: ['A-1'] })).status).toBe(204);
    expect((await objectInfos(ctx.api, event, ['A-1']))['A-1']!.status).toBe('free');
  });

  it('a custom status containing U+001F is refused or stored verbatim', async () => {
    const status = `lounge${US}token`;
    const response = await action(ctx.api, event, 'change-object-status', { objects: ['A-1'], status });
    if (response.status === 400) {
      await expectUnchanged();
      return;
    }
    expect(response.status, response.text).toBe(204);
    expect((await objectInfos(ctx.api, event, ['A-1']))['A-1']!.status).toBe(status);
  });
});

describe('events', () => {
  it('an unknown event → 404 EVENT_NOT_FOUND on every route', async () => {
    for (const name of ['book', 'hold', 'release', 'change-object-status', 'put-up-for-resale'] as Action[]) {
      expectError(await action(ctx.api, 'no-such-event', name, { objects: ['A-1'], status: 'x', holdToken: 't' }), 404, 'EVENT_NOT_FOUND');
    }
    expectError(await ctx.api.post('/events/actions/change-object-status', { statusChanges: [{ event, status: 'booked', objects: ['A-1'] }, { event: 'no-such-event', status: 'booked', objects: ['A-1'] }] }), 404, 'EVENT_NOT_FOUND');
    await expectUnchanged();
  });

  it("another workspace's event → 404 EVENT_NOT_FOUND, unchanged", async () => {
    const other = await ctx.freshCompany();
    expectError(await action(other.api, event, 'book', { objects: ['A-1'] }), 404, 'EVENT_NOT_FOUND');
    await expectUnchanged();
  });
});

describe('body shape', () => {
  it('wrong types → 400 GENERAL_ERROR', async () => {
    const bodies: unknown[] = [
      { objects: 'A-1' },
      { objects: { 0: 'A-1' } },
      { objects: null },
      {},
      { objects: [42] },
      { objects: [{ label: 'A-1' }] },
      { objects: ['A-1'], orderId: 5 },
      { objects: ['A-1'], keepExtraData: 'yes' },
      { objects: ['A-1'], channelKeys: 'ch1' },
      { objects: ['A-1'], ignoreChannels: 1 },
      { objects: ['A-1'], holdToken: 12 },
      { objects: ['A-1'], allowedPreviousStatuses: 'free' },
      { objects: [{ objectId: 'A-1', ticketType: 3 }] },
      { objects: ['A'.repeat(201)] },
      [],
      'A-1',
    ];
    for (const body of bodies) {
      const response = await action(ctx.api, event, 'book', body);
      expectError(response, 400, 'GENERAL_ERROR');
    }
    await expectUnchanged();
  });

  it('malformed JSON → 400 GENERAL_ERROR', async () => {
    const response = await ctx.api.post(`/events/${event}/actions/book`, undefined, { raw: '{"objects": ["A-1"', headers: { 'content-type': 'application/json' } });
    await refused(response, 400, 'GENERAL_ERROR');
  });

  it('group and batch bodies are checked: events, type, statusChanges', async () => {
    const group = (body: unknown) => ctx.api.post('/events/groups/actions/change-object-status', body);
    for (const body of [
      { events: [], status: 'booked', objects: ['A-1'] },
      { events: event, status: 'booked', objects: ['A-1'] },
      { events: [event], type: 'BOOK', status: 'booked', objects: ['A-1'] },
      { events: Array.from({ length: 21 }, () => event), status: 'booked', objects: ['A-1'] },
    ]) {
      expectError(await group(body), 400, 'GENERAL_ERROR');
    }
    const batch = (statusChanges: unknown) => ctx.api.post('/events/actions/change-object-status', { statusChanges });
    for (const statusChanges of [
      'x',
      [{ status: 'booked', objects: ['A-1'] }],
      [{ event, type: 'NOPE', status: 'booked', objects: ['A-1'] }],
      Array.from({ length: 101 }, () => ({ event, status: 'booked', objects: ['A-1'] })),
    ]) {
      expectError(await batch(statusChanges), 400, 'GENERAL_ERROR');
    }
    await expectUnchanged();
  });
});

describe('authentication', () => {
  it('no key → 401, wrong key → 401; nothing changed', async () => {
    const path = `/events/${event}/actions/book`;
    const anonymous = await call(ctx.server.url, 'POST', path, { body: { objects: ['A-1'] } });
    expect(anonymous.status).toBe(401);
    const wrong = await call(ctx.server.url, 'POST', path, { key: 'not-a-key', body: { objects: ['A-1'] } });
    expect(wrong.status).toBe(401);
    for (const other of ['/events/groups/actions/change-object-status', '/events/actions/change-object-status']) {
      expect((await call(ctx.server.url, 'POST', other, { body: {} })).status).toBe(401);
    }
    await expectUnchanged();
  });

  it('the company admin key acts on the default workspace', async () => {
    const response = await action(ctx.admin, event, 'book', { objects: ['A-1'] });
    expect(response.status, response.text).toBe(204);
    expect((await objectInfos(ctx.api, event, ['A-1']))['A-1']!.status).toBe('booked');
  });
});

describe('conflicting parameters', () => {
  it('channelKeys with ignoreChannels → 400 CHANNEL_KEYS_WITH_IGNORE_CHANNELS on every route', async () => {
    const body = { objects: ['A-1'], channelKeys: ['NO_CHANNEL'], ignoreChannels: true, status: 'x', holdToken: 't' };
    for (const name of ['book', 'hold', 'release', 'change-object-status'] as Action[]) {
      expectError(await action(ctx.api, event, name, body), 400, 'CHANNEL_KEYS_WITH_IGNORE_CHANNELS');
    }
    expectError(await ctx.api.post('/events/groups/actions/change-object-status', { ...body, events: [event] }), 400, 'CHANNEL_KEYS_WITH_IGNORE_CHANNELS');
    await expectUnchanged();
  });
});
