import { beforeAll, describe, expect, it } from 'vitest';
import { generatedDrawing } from '../../bench/drawings.js';
import { rowsWithoutSections, withBooths, withSections, withTables, withZones } from '../fixtures/drawings.js';
import { sdkSampleChart } from '../fixtures/sdkSampleChart.js';
import { clone, uploadDrawing } from '../support/charts.js';
import { action, createEvent, done, expectBookedAsAnswered, expireIn, holdToken, statuses } from '../support/events.js';
import { expectError, useServerWithCompany } from '../support/harness.js';
import { createSeason, eventKeysOf } from '../support/seasons.js';

// Best available on the routes (docs/best-available.md): the answers the official SDKs
// expect on their sample chart, the parameters it combines with, and bad input.

const ctx = useServerWithCompany('shared');
let chartKey: string;

beforeAll(async () => {
  chartKey = (await uploadDrawing(ctx.api, sdkSampleChart)).key;
});

async function best(eventKey: string, bestAvailable: Record<string, unknown>, more: Record<string, unknown> = {}, path: 'book' | 'hold' | 'change-object-status' = 'change-object-status') {
  const body = path === 'change-object-status' ? { status: 'foo', bestAvailable, ...more } : { bestAvailable, ...more };
  const response = await action(ctx.api, eventKey, path, body);
  expect(response.status, response.text).toBe(200);
  return response.body as { objects: string[]; objectDetails: Record<string, Record<string, unknown>>; nextToEachOther?: boolean };
}

describe('the SDK sample chart', () => {
  it('gives the seats closest to the focal point: 1 -> A-5, 2 -> A-4,A-5, 3 -> A-4..A-6', async () => {
    expect((await best(await createEvent(ctx.api, chartKey), { number: 1 })).objects).toEqual(['A-5']);
    expect((await best(await createEvent(ctx.api, chartKey), { number: 2 })).objects).toEqual(['A-4', 'A-5']);
    const three = await best(await createEvent(ctx.api, chartKey), { number: 3 });
    expect(three.objects).toEqual(['A-4', 'A-5', 'A-6']);
    expect(three.nextToEachOther).toBe(true);
    expect(three.objectDetails['A-4']).toMatchObject({ status: 'foo', label: 'A-4', objectType: 'seat' });
  });

  it('prevents orphan seats by default (B-4,B-5), and not when asked (A-2,A-3)', async () => {
    const event = await createEvent(ctx.api, chartKey);
    await done(ctx.api, event, 'book', { objects: ['A-4', 'A-5'] });
    expect((await best(event, { number: 2 })).objects).toEqual(['B-4', 'B-5']);
    const other = await createEvent(ctx.api, chartKey);
    await done(ctx.api, other, 'book', { objects: ['A-4', 'A-5'] });
    expect((await best(other, { number: 2, tryToPreventOrphanSeats: false })).objects).toEqual(['A-2', 'A-3']);
  });

  it('matches categories by key or by label, case-insensitively, inside bestAvailable or beside it', async () => {
    expect((await best(await createEvent(ctx.api, chartKey), { number: 3, categories: ['cat2'] })).objects).toEqual(['C-4', 'C-5', 'C-6']);
    expect((await best(await createEvent(ctx.api, chartKey), { number: 3, categories: [10] })).objects).toEqual(['C-4', 'C-5', 'C-6']);
    expect((await best(await createEvent(ctx.api, chartKey), { number: 3 }, { categories: ['Cat2'] })).objects).toEqual(['C-4', 'C-5', 'C-6']);
  });

  it('gives accessible seats when asked: 1 of 3 -> A-6,A-7,A-8', async () => {
    const result = await best(await createEvent(ctx.api, chartKey), { number: 3, accessibleSeats: 1 });
    expect(result.objects).toEqual(['A-6', 'A-7', 'A-8']);
  });

  it('books and holds, with extra data, ticket types and an order id', async () => {
    const event = await createEvent(ctx.api, chartKey);
    const booked = await best(event, { number: 2, extraData: [{ foo: 'bar' }, { foo: 'baz' }], ticketTypes: ['adult', 'child'] }, { orderId: 'o1' }, 'book');
    expect(booked.objects).toEqual(['A-4', 'A-5']);
    expect(booked.objectDetails['A-4']).toMatchObject({ status: 'booked', extraData: { foo: 'bar' }, ticketType: 'adult', orderId: 'o1' });
    expect(booked.objectDetails['A-5']).toMatchObject({ extraData: { foo: 'baz' }, ticketType: 'child' });
    const token = await holdToken(ctx.api);
    const held = await best(event, { number: 2 }, { holdToken: token }, 'hold');
    expect(held.objects).toEqual(['B-4', 'B-5']);
    expect(await statuses(ctx.api, event, ['B-4', 'B-5'])).toEqual({ 'B-4': 'reservedByToken', 'B-5': 'reservedByToken' });
  });

  it('details the objects it chose as a change with expand=objects details the same objects (seats and a GA area)', async () => {
    // The best-available answer writes its details as JSON text (StatusChangeService.applyAsJson);
    // a plain change answers them as objects. On twin events they must say the same.
    const cases: [Record<string, unknown>, Record<string, unknown>, (labels: string[]) => unknown[]][] = [
      [
        { number: 2, extraData: [{ foo: 'bar' }, { n: 1 }], ticketTypes: ['adult', 'child'] },
        { orderId: 'o-9' },
        (labels) => [
          { objectId: labels[0], extraData: { foo: 'bar' }, ticketType: 'adult' },
          { objectId: labels[1], extraData: { n: 1 }, ticketType: 'child' },
        ],
      ],
      [{ number: 60, categories: ['Cat1'] }, {}, (labels) => [{ objectId: labels[0], quantity: 60 }]],
    ];
    for (const [bestAvailable, more, objectsOf] of cases) {
      const [chosenIn, twin] = [await createEvent(ctx.api, chartKey), await createEvent(ctx.api, chartKey)];
      const chosen = await best(chosenIn, bestAvailable, more, 'book');
      const plain = await ctx.api.post(`/events/${twin}/actions/book?expand=objects`, { objects: objectsOf(chosen.objects), ...more });
      expect(plain.status, plain.text).toBe(200);
      expect(chosen.objectDetails).toEqual(plain.body.objects);
    }
  });

  it('details seats chosen with no parameter but a hold token (the plain way) as a change with expand=objects details them', async () => {
    // With no parameter but a hold token a choice of seats is applied the plain way and its
    // details are worded from the status (and token) alone (StatusChangeService.applyPlainAsJson);
    // the twin event's change goes the general way, expanded, and words the records the script
    // answers. Each case prepares both events alike: extra data on the seats that will be
    // chosen (dropped by the change), a for-sale config elsewhere (the script's general way
    // then), a custom status, a hold, a booking with a token.
    const extraData = (event: string) =>
      Promise.all(['A-4', 'A-5'].map(async (label) => expect((await ctx.api.post(`/events/${event}/objects/${label}/actions/update-extra-data`, { extraData: { note: label } })).status).toBe(204)));
    const notForSale = async (event: string) => expect((await ctx.api.post(`/events/${event}/actions/mark-as-not-for-sale`, { objects: ['C-1'] })).status).toBe(200);
    const token = await holdToken(ctx.api);
    const cases: { path: 'book' | 'hold' | 'change-object-status'; more?: Record<string, unknown>; prepare?: (event: string) => Promise<unknown> }[] = [
      { path: 'book' },
      { path: 'book', prepare: extraData },
      { path: 'book', prepare: notForSale },
      { path: 'change-object-status', more: { status: 'foo' }, prepare: extraData },
      { path: 'hold', more: { holdToken: token }, prepare: extraData },
      { path: 'book', more: { holdToken: token } },
    ];
    for (const { path, more = {}, prepare } of cases) {
      const [chosenIn, twin] = [await createEvent(ctx.api, chartKey), await createEvent(ctx.api, chartKey)];
      await prepare?.(chosenIn);
      await prepare?.(twin);
      const { status, ...parameters } = more;
      const chosen = await best(chosenIn, { number: 2 }, parameters, path);
      expect(chosen.objects).toEqual(['A-4', 'A-5']);
      const plain = await action(ctx.api, twin, path, { objects: chosen.objects, ...more }, true);
      expect(plain.status, plain.text).toBe(200);
      expect(chosen.objectDetails).toEqual(plain.body.objects);
      // What is stored says the same: object info of the chosen event.
      const info = await ctx.api.get(`/events/${chosenIn}/objects/A-4`);
      expect(info.status, info.text).toBe(200);
      expect(chosen.objectDetails['A-4']).toEqual(info.body);
    }
  });

  it('answers 400 BEST_AVAILABLE_OBJECTS_NOT_FOUND when there are not enough, changing nothing', async () => {
    const event = await createEvent(ctx.api, chartKey);
    const response = await action(ctx.api, event, 'book', { bestAvailable: { number: 101 } });
    expectError(response, 400, 'BEST_AVAILABLE_OBJECTS_NOT_FOUND');
    expect(response.body.errors[0].message).toBe('Best available objects not found');
  });

  // seats.io's answer to more than the chart has (the SDKs' own test asks for 3,000): "not
  // found", not a refusal of the number (docs/best-available.md, "Not found").
  it('a number beyond every free object of the chart (3,000, and the cap of 10,000) is 400 BEST_AVAILABLE_OBJECTS_NOT_FOUND, changing nothing', async () => {
    const event = await createEvent(ctx.api, chartKey);
    for (const [number, path] of [[3000, 'change-object-status'], [3000, 'book'], [10_000, 'book']] as const) {
      const body = path === 'book' ? { bestAvailable: { number } } : { status: 'myStatus', bestAvailable: { number } };
      const response = await action(ctx.api, event, path, body);
      expectError(response, 400, 'BEST_AVAILABLE_OBJECTS_NOT_FOUND');
      expect(response.body.errors).toStrictEqual([{ code: 'BEST_AVAILABLE_OBJECTS_NOT_FOUND', message: 'Best available objects not found' }]);
    }
    const report = await ctx.api.get(`/reports/events/${encodeURIComponent(event)}/byStatus`);
    expect(Object.keys(report.body)).toEqual(['free']);
    // An unknown event stays a 404, whatever the number.
    expectError(await action(ctx.api, 'no-such-event', 'book', { bestAvailable: { number: 3000 } }), 404, 'EVENT_NOT_FOUND');
  });

  it('past the cap of 10,000 the number itself is refused, with its own message', async () => {
    const event = await createEvent(ctx.api, chartKey);
    const response = await action(ctx.api, event, 'book', { bestAvailable: { number: 10_001 } });
    expectError(response, 400, 'INVALID_BEST_AVAILABLE');
    expect(response.body.errors[0].message).toBe('bestAvailable.number must be at most 10000: best available picks at most 10000 objects or places per request, got 10001');
    expect(await statuses(ctx.api, event, ['A-4', 'A-5'])).toEqual({ 'A-4': 'free', 'A-5': 'free' });
  });
});

describe('what best available never gives', () => {
  it('skips objects in channels unless their channel is passed; ignoreChannels searches all', async () => {
    const channels = [{ key: 'ch1', name: 'Channel 1', objects: ['A-4', 'A-5'] }];
    const event = await createEvent(ctx.api, chartKey, { channels });
    expect((await best(event, { number: 1 })).objects).toEqual(['A-6']);
    expect((await best(event, { number: 2 }, { channelKeys: ['ch1'] })).objects).toEqual(['A-4', 'A-5']);
    const other = await createEvent(ctx.api, chartKey, { channels });
    expect((await best(other, { number: 2 }, { ignoreChannels: true })).objects).toEqual(['A-4', 'A-5']);
  });

  it('skips objects not for sale and objects up for resale', async () => {
    const event = await createEvent(ctx.api, chartKey, { forSaleConfig: { forSale: false, objects: ['A-4', 'A-5'] } });
    expect((await best(event, { number: 2 })).objects).toEqual(['B-4', 'B-5']);
    const resale = await createEvent(ctx.api, chartKey);
    await done(ctx.api, resale, 'put-up-for-resale', { objects: ['A-4', 'A-5'] });
    expect((await best(resale, { number: 2 })).objects).toEqual(['B-4', 'B-5']);
  });

  it('respects what was booked or held outside best available after its last look, and takes expired holds as free', async () => {
    const event = await createEvent(ctx.api, chartKey);
    expect((await best(event, { number: 1 })).objects).toEqual(['A-5']);
    // The view of this event now says A-4 is open; a plain booking takes it behind its back.
    await done(ctx.api, event, 'book', { objects: ['A-4', 'A-6'] });
    const next = await best(event, { number: 2 }, {}, 'book');
    expect(next.objects).toEqual(['B-4', 'B-5']);
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'hold', { objects: ['C-4', 'C-5'], holdToken: token });
    await expireIn(ctx.api, token, 0);
    expect((await best(event, { number: 2, categories: ['Cat2'] })).objects).toEqual(['C-4', 'C-5']);
  });

  it('chooses one GA area when no seats are left, never splitting over two', async () => {
    const event = await createEvent(ctx.api, chartKey);
    const result = await best(event, { number: 60, categories: ['Cat1'] }, {}, 'book');
    expect(result.objects).toEqual(['GA1']);
    expect(result.objectDetails.GA1).toMatchObject({ numBooked: 60 });
    expectError(await action(ctx.api, event, 'book', { bestAvailable: { number: 60, categories: ['Cat1'] } }), 400, 'BEST_AVAILABLE_OBJECTS_NOT_FOUND');
  });
});

describe('tables and booths', () => {
  it('gives tables booked as a whole and booths, without nextToEachOther', async () => {
    const tables = (await uploadDrawing(ctx.api, withTables)).key;
    // T1 is booked by seat (its seats are never picked: they are not in a row), T2 as a whole.
    const result = await best(await createEvent(ctx.api, tables), { number: 1 }, {}, 'book');
    expect(result.objects).toEqual(['T2']);
    expect(result).not.toHaveProperty('nextToEachOther');
    expect(result.objectDetails.T2).toMatchObject({ status: 'booked', objectType: 'table' });
    const byTable = await createEvent(ctx.api, tables, { tableBookingConfig: { mode: 'ALL_BY_TABLE' } });
    expect((await best(byTable, { number: 2 })).objects).toEqual(['T1', 'T2']);
    const booths = (await uploadDrawing(ctx.api, withBooths)).key;
    const boothResult = await best(await createEvent(ctx.api, booths), { number: 1 });
    expect(boothResult.objects).toEqual(['B2']);
    expect(boothResult).not.toHaveProperty('nextToEachOther');
  });
});

describe('zones and sections', () => {
  it('uses the zone focal point and keeps to the zone', async () => {
    const chart = (await uploadDrawing(ctx.api, withZones)).key;
    const event = await createEvent(ctx.api, chart);
    expect((await best(event, { number: 1, zone: 'north' })).objects).toEqual(['N1-A-2']);
    expect((await best(event, { number: 2, zone: 'south' })).objects).toEqual(['S1-A-1', 'S1-A-2']);
    // Without a zone the chart's own focal point is needed, and this one has none.
    expectError(await action(ctx.api, event, 'book', { bestAvailable: { number: 1 } }), 400, 'NO_FOCAL_POINT');
  });

  it('keeps to the sections asked for', async () => {
    const chart = (await uploadDrawing(ctx.api, withSections)).key;
    const event = await createEvent(ctx.api, chart);
    expect((await best(event, { number: 1 })).objects).toEqual(['Section B-A-1']);
    expect((await best(event, { number: 1, sections: ['Section A'] })).objects).toEqual(['Section A-A-3']);
  });
});

describe('seasons and event groups', () => {
  it('chooses on a season around what its events hold, and on an event around what the season holds', async () => {
    const season = await createSeason(ctx.api, chartKey, { numberOfEvents: 2 });
    const [first, second] = eventKeysOf(season);
    await done(ctx.api, first!, 'book', { objects: ['A-4', 'A-5'] });
    expect((await best(season.key, { number: 2 }, {}, 'book')).objects).toEqual(['B-4', 'B-5']);
    expect((await best(second!, { number: 2 }, {}, 'book')).objects).toEqual(['A-4', 'A-5']);
    expect((await best(first!, { number: 2 }, {}, 'book')).objects).toEqual(['C-4', 'C-5']);
  });

  it("keeps to the season's channels in its events, as they change", async () => {
    const season = await createSeason(ctx.api, chartKey, { numberOfEvents: 1, channels: [{ key: 'ch1', name: 'Channel 1', objects: ['A-4', 'A-5'] }] });
    const [event] = eventKeysOf(season);
    expect((await best(event!, { number: 1 })).objects).toEqual(['A-6']);
    const replaced = await ctx.api.post(`/events/${encodeURIComponent(season.key)}/channels/replace`, { channels: [] });
    expect(replaced.status, replaced.text).toBe(204);
    expect((await best(event!, { number: 1 })).objects).toEqual(['A-5']);
  });

  it('is refused on event groups and batches', async () => {
    const [a, b] = [await createEvent(ctx.api, chartKey), await createEvent(ctx.api, chartKey)];
    const group = await ctx.api.post('/events/groups/actions/change-object-status', { events: [a, b], status: 'booked', bestAvailable: { number: 2 } });
    expectError(group, 400, 'BEST_AVAILABLE_NOT_SUPPORTED');
    const batch = await ctx.api.post('/events/actions/change-object-status', { statusChanges: [{ event: a, status: 'booked', bestAvailable: { number: 2 } }] });
    expectError(batch, 400, 'BEST_AVAILABLE_NOT_SUPPORTED');
    expect(await statuses(ctx.api, a, ['A-4', 'A-5'])).toEqual({ 'A-4': 'free', 'A-5': 'free' });
  });
});

describe('bad input changes nothing', () => {
  const cases: [string, Record<string, unknown>, string, number?][] = [
    ['number 0', { bestAvailable: { number: 0 } }, 'INVALID_BEST_AVAILABLE'],
    ['a negative number', { bestAvailable: { number: -2 } }, 'INVALID_BEST_AVAILABLE'],
    ['a fractional number', { bestAvailable: { number: 1.5 } }, 'INVALID_BEST_AVAILABLE'],
    ['a number above the cap', { bestAvailable: { number: 10_001 } }, 'INVALID_BEST_AVAILABLE'],
    ['a number far above the cap', { bestAvailable: { number: 1e300 } }, 'INVALID_BEST_AVAILABLE'],
    ['a number that is not a number', { bestAvailable: { number: '3' } }, 'GENERAL_ERROR'],
    ['accessibleSeats above number', { bestAvailable: { number: 2, accessibleSeats: 3 } }, 'INVALID_BEST_AVAILABLE'],
    ['an unknown category', { bestAvailable: { number: 2, categories: ['nope'] } }, 'CATEGORY_NOT_FOUND'],
    ['an unknown top-level category', { bestAvailable: { number: 2 }, categories: ['nope'] }, 'CATEGORY_NOT_FOUND'],
    ['an unknown zone', { bestAvailable: { number: 2, zone: 'nope' } }, 'ZONE_NOT_FOUND'],
    ['sections on a chart without sections', { bestAvailable: { number: 2, sections: ['Section A'] } }, 'SECTION_NOT_FOUND'],
    ['objects and bestAvailable', { objects: ['A-1'], bestAvailable: { number: 2 } }, 'OBJECTS_AND_BEST_AVAILABLE'],
    ['too few extraData', { bestAvailable: { number: 2, extraData: [{ a: 1 }] } }, 'INVALID_BEST_AVAILABLE'],
    ['too many ticketTypes', { bestAvailable: { number: 2, ticketTypes: ['a', 'b', 'c'] } }, 'INVALID_BEST_AVAILABLE'],
    ['extraData that is not an object', { bestAvailable: { number: 1, extraData: ['text'] } }, 'INVALID_EXTRA_DATA'],
    ['a hold without a token', { bestAvailable: { number: 2 }, status: 'reservedByToken' }, 'HOLD_TOKEN_REQUIRED'],
    ['neither objects nor bestAvailable', { status: 'booked' }, 'GENERAL_ERROR'],
  ];
  for (const [what, body, code] of cases) {
    it(`${what} -> 400 ${code}`, async () => {
      const event = await createEvent(ctx.api, chartKey);
      expectError(await action(ctx.api, event, 'change-object-status', { status: 'booked', ...body }), 400, code);
      expect(await statuses(ctx.api, event, ['A-4', 'A-5', 'A-6'])).toEqual({ 'A-4': 'free', 'A-5': 'free', 'A-6': 'free' });
    });
  }

  it('a section that does not exist on a chart with sections -> 400 SECTION_NOT_FOUND', async () => {
    const chart = (await uploadDrawing(ctx.api, withSections)).key;
    expectError(await action(ctx.api, await createEvent(ctx.api, chart), 'book', { bestAvailable: { number: 1, sections: ['Nope'] } }), 400, 'SECTION_NOT_FOUND');
  });

  it('a chart without a focal point -> 400 NO_FOCAL_POINT', async () => {
    const drawing = clone(rowsWithoutSections);
    drawing.subChart!.focalPoint = null;
    const chart = (await uploadDrawing(ctx.api, drawing)).key;
    expectError(await action(ctx.api, await createEvent(ctx.api, chart), 'book', { bestAvailable: { number: 1 } }), 400, 'NO_FOCAL_POINT');
  });
});

describe('under contention', () => {
  it('500 concurrent requests of 2-4 seats on one event: each succeeds, no seat twice, the event holds exactly what was answered', async () => {
    const chart = (await uploadDrawing(ctx.api, generatedDrawing({ sections: 0, rowsPerSection: 40, seatsPerRow: 50 }))).key;
    const event = await createEvent(ctx.api, chart);
    const sizes = Array.from({ length: 500 }, (_, i) => 2 + (i % 3));
    const answers = await Promise.all(sizes.map((number) => action(ctx.api, event, 'book', { bestAvailable: { number } })));
    const given = await expectBookedAsAnswered(ctx.api, event, answers, sizes);
    // What is left goes too, to the last seat; then "not found".
    const left = 2000 - given.length;
    expect((await action(ctx.api, event, 'book', { bestAvailable: { number: left } })).status).toBe(200);
    expectError(await action(ctx.api, event, 'book', { bestAvailable: { number: 1 } }), 400, 'BEST_AVAILABLE_OBJECTS_NOT_FOUND');
  }, 60_000);

  it('more than 1,000 (the cap of one status change) is looked for in one GA area only: places of an area, else not found', async () => {
    const chart = (await uploadDrawing(ctx.api, generatedDrawing({ sections: 0, rowsPerSection: 40, seatsPerRow: 50 }))).key;
    const event = await createEvent(ctx.api, chart);
    expectError(await action(ctx.api, event, 'book', { bestAvailable: { number: 1001 } }), 400, 'BEST_AVAILABLE_OBJECTS_NOT_FOUND');
    expect((await action(ctx.api, event, 'book', { bestAvailable: { number: 1000 } })).status).toBe(200);

    const withArea = clone(rowsWithoutSections);
    withArea.subChart!.generalAdmissionAreas![0]!.capacity = 5000;
    const areaEvent = await createEvent(ctx.api, (await uploadDrawing(ctx.api, withArea)).key);
    const answer = await action(ctx.api, areaEvent, 'book', { bestAvailable: { number: 4000 } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.objects).toEqual(['GA1']);
    expect(answer.body.objectDetails.GA1).toMatchObject({ numBooked: 4000, numFree: 1000 });
  }, 60_000);
});
