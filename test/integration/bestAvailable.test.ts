import { beforeAll, describe, expect, it } from 'vitest';
import { sdkSampleChart } from '../fixtures/sdkSampleChart.js';
import { uploadDrawing } from '../support/charts.js';
import { action, createEvent, done, holdToken, statuses } from '../support/events.js';
import { expectError, useServerWithCompany } from '../support/harness.js';

// Best available on the routes (docs/best-available.md): the answers the official SDKs
// expect on their sample chart, the parameters it combines with, and bad input.

const ctx = useServerWithCompany();
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

  it('answers 400 BEST_AVAILABLE_OBJECTS_NOT_FOUND when there are not enough, changing nothing', async () => {
    const event = await createEvent(ctx.api, chartKey);
    const response = await action(ctx.api, event, 'book', { bestAvailable: { number: 101 } });
    expectError(response, 400, 'BEST_AVAILABLE_OBJECTS_NOT_FOUND');
    expect(response.body.errors[0].message).toBe('Best available objects not found');
  });
});
