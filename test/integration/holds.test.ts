import { tokenEntryExpiry } from '../../src/domain/objectStates.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { eventKeys } from '../../src/inventory/eventKeys.js';
import { storedEvent } from '../support/eventAdmin.js';
import { action, createEvent, done, expireIn, holdMemberOf, holdToken, objectInfo, objectInfos, statuses } from '../support/events.js';
import { expectError } from '../support/harness.js';
import { useEventPerTest } from '../support/eventPerTest.js';

// Holds (docs/seatsio-behaviour.md, "Object statuses", "Hold tokens"): a hold needs a live token of the
// workspace; only that token confirms or releases the hold; the token's expiry, changed at
// any time, decides exactly when held objects are free again, for seats and GA areas.

let event: string;
const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key));
let token: string;

beforeEach(async () => {
  token = await holdToken(ctx.api);
});

/** The Redis keys of an event's inventory. */
async function keysOf(eventKey: string) {
  return eventKeys(await storedEvent(ctx.server, ctx.company.workspace.id, eventKey));
}

async function tokenExpiresAt(holdTokenValue: string): Promise<number> {
  const response = await ctx.api.get(`/hold-tokens/${holdTokenValue}`);
  expect(response.status, response.text).toBe(200);
  return Date.parse(response.body.expiresAt);
}

describe('holding seats', () => {
  it('holds free seats with a token: status reservedByToken and the token shown', async () => {
    const response = await action(ctx.api, event, 'hold', { objects: ['A-1', 'A-2'], holdToken: token }, true);
    expect(response.status, response.text).toBe(200);
    expect(response.body.objects['A-1']).toMatchObject({
      status: 'reservedByToken',
      holdToken: token,
      isAvailable: false,
      availabilityReason: 'reservedByToken',
    });
    const infos = await objectInfos(ctx.api, event, ['A-1', 'A-2', 'A-3']);
    expect(infos['A-1']).toMatchObject({ status: 'reservedByToken', holdToken: token });
    expect(infos['A-2']).toMatchObject({ status: 'reservedByToken', holdToken: token });
    expect(infos['A-3']!.status).toBe('free');
    expect(infos['A-3']!.holdToken).toBeUndefined();
  });

  it('answers 204 without expand', async () => {
    const response = await action(ctx.api, event, 'hold', { objects: ['A-1'], holdToken: token });
    expect(response.status, response.text).toBe(204);
  });

  it('holds through change-object-status with status reservedByToken, as the SDKs do', async () => {
    await done(ctx.api, event, 'change-object-status', { objects: ['A-1'], status: 'reservedByToken', holdToken: token });
    expect(await objectInfo(ctx.api, event, 'A-1')).toMatchObject({ status: 'reservedByToken', holdToken: token });
  });

  it('needs a hold token: 400 HOLD_TOKEN_REQUIRED, nothing held', async () => {
    expectError(await action(ctx.api, event, 'hold', { objects: ['A-1'] }), 400, 'HOLD_TOKEN_REQUIRED');
    expectError(await action(ctx.api, event, 'hold', { objects: ['A-1'], holdToken: '' }), 400, 'HOLD_TOKEN_REQUIRED');
    expectError(await action(ctx.api, event, 'change-object-status', { objects: ['A-1'], status: 'reservedByToken' }), 400, 'HOLD_TOKEN_REQUIRED');
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('free');
  });

  it('needs a token that exists: 400 HOLD_TOKEN_NOT_FOUND, nothing held', async () => {
    expectError(await action(ctx.api, event, 'hold', { objects: ['A-1'], holdToken: 'no-such-token' }), 400, 'HOLD_TOKEN_NOT_FOUND');
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('free');
  });

  it('needs a token that has not expired: 400 HOLD_TOKEN_NOT_FOUND', async () => {
    await expireIn(ctx.api, token, 0);
    expectError(await action(ctx.api, event, 'hold', { objects: ['A-1', 'GA1'], holdToken: token }), 400, 'HOLD_TOKEN_NOT_FOUND');
    const infos = await objectInfos(ctx.api, event, ['A-1', 'GA1']);
    expect(infos['A-1']!.status).toBe('free');
    expect(infos.GA1).toMatchObject({ numHeld: 0, numFree: 100 });
  });

  it('needs a token of the same workspace: 400 HOLD_TOKEN_NOT_FOUND', async () => {
    const other = await ctx.freshCompany();
    const foreign = (await other.api.post('/hold-tokens', {})).body.holdToken as string;
    expectError(await action(ctx.api, event, 'hold', { objects: ['A-1'], holdToken: foreign }), 400, 'HOLD_TOKEN_NOT_FOUND');
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('free');
  });

  it('refuses booked seats (OBJECT_NOT_FREE) and seats held by another token (HOLD_TOKEN_MISMATCH), holding nothing', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    const other = await holdToken(ctx.api);
    await done(ctx.api, event, 'hold', { objects: ['A-2'], holdToken: other });
    expectError(await action(ctx.api, event, 'hold', { objects: ['A-3', 'A-1'], holdToken: token }), 400, 'OBJECT_NOT_FREE');
    expectError(await action(ctx.api, event, 'hold', { objects: ['A-3', 'A-2'], holdToken: token }), 400, 'HOLD_TOKEN_MISMATCH');
    const infos = await objectInfos(ctx.api, event, ['A-2', 'A-3']);
    expect(infos['A-2']).toMatchObject({ status: 'reservedByToken', holdToken: other });
    expect(infos['A-3']!.status).toBe('free');
  });
});

describe('confirming and releasing holds', () => {
  beforeEach(async () => {
    await done(ctx.api, event, 'hold', { objects: ['A-1', 'A-2'], holdToken: token });
  });

  it('a held seat cannot be booked without the token: 400 HOLD_TOKEN_MISMATCH, nothing booked', async () => {
    const response = await action(ctx.api, event, 'book', { objects: ['A-3', 'A-1'] });
    expectError(response, 400, 'HOLD_TOKEN_MISMATCH');
    expect(response.body.errors[0].data.objects).toEqual(['A-1']);
    expect(await statuses(ctx.api, event, ['A-1', 'A-3'])).toEqual({ 'A-1': 'reservedByToken', 'A-3': 'free' });
  });

  it('a held seat cannot be booked with another token: 400 HOLD_TOKEN_MISMATCH', async () => {
    const other = await holdToken(ctx.api);
    expectError(await action(ctx.api, event, 'book', { objects: ['A-1'], holdToken: other }), 400, 'HOLD_TOKEN_MISMATCH');
    expect(await objectInfo(ctx.api, event, 'A-1')).toMatchObject({ status: 'reservedByToken', holdToken: token });
  });

  it('a held seat cannot get a custom status without its token', async () => {
    expectError(await action(ctx.api, event, 'change-object-status', { objects: ['A-1'], status: 'lounge' }), 400, 'HOLD_TOKEN_MISMATCH');
    await done(ctx.api, event, 'change-object-status', { objects: ['A-1'], status: 'lounge', holdToken: token });
    expect(await objectInfo(ctx.api, event, 'A-1')).toMatchObject({ status: 'lounge' });
    expect((await objectInfo(ctx.api, event, 'A-1')).holdToken).toBeUndefined();
  });

  it('booking with the token books and clears the hold token', async () => {
    const response = await action(ctx.api, event, 'book', { objects: ['A-1', 'A-3'], holdToken: token, orderId: 'o1' }, true);
    expect(response.status, response.text).toBe(200);
    expect(response.body.objects['A-1']).toMatchObject({ status: 'booked', orderId: 'o1' });
    expect(response.body.objects['A-1'].holdToken).toBeUndefined();
    const infos = await objectInfos(ctx.api, event, ['A-1', 'A-2', 'A-3']);
    expect(infos['A-1']).toMatchObject({ status: 'booked', orderId: 'o1' });
    expect(infos['A-1']!.holdToken).toBeUndefined();
    expect(infos['A-2']).toMatchObject({ status: 'reservedByToken', holdToken: token });
    expect(infos['A-3']!.status).toBe('booked');
  });

  it('releasing with the token frees the seat and clears the hold token', async () => {
    const response = await action(ctx.api, event, 'release', { objects: ['A-1'], holdToken: token }, true);
    expect(response.status, response.text).toBe(200);
    expect(response.body.objects['A-1'].status).toBe('free');
    expect(response.body.objects['A-1'].holdToken).toBeUndefined();
    const info = await objectInfo(ctx.api, event, 'A-1');
    expect(info.status).toBe('free');
    expect(info.holdToken).toBeUndefined();
    // Free again for anyone.
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
  });

  it('releasing with another token → 400 HOLD_TOKEN_MISMATCH, still held', async () => {
    const other = await holdToken(ctx.api);
    expectError(await action(ctx.api, event, 'release', { objects: ['A-1'], holdToken: other }), 400, 'HOLD_TOKEN_MISMATCH');
    expect(await objectInfo(ctx.api, event, 'A-1')).toMatchObject({ status: 'reservedByToken', holdToken: token });
  });

  it('releasing without a token frees a held seat (back-office release)', async () => {
    await done(ctx.api, event, 'release', { objects: ['A-1'] });
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('free');
  });

  it('a booked seat cannot be held: release first, or release and hold in one batch', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'], holdToken: token });
    expectError(await action(ctx.api, event, 'hold', { objects: ['A-1'], holdToken: token }), 400, 'OBJECT_NOT_FREE');
    const response = await ctx.api.post('/events/actions/change-object-status?expand=objects', {
      statusChanges: [
        { event, type: 'RELEASE', objects: ['A-1'] },
        { event, status: 'reservedByToken', holdToken: token, objects: ['A-1'] },
      ],
    });
    expect(response.status, response.text).toBe(200);
    expect(await objectInfo(ctx.api, event, 'A-1')).toMatchObject({ status: 'reservedByToken', holdToken: token });
  });
});

describe('hold token expiry', () => {
  it('expiry is exact: at 0 minutes the held seats are at once free and bookable by anyone', async () => {
    await done(ctx.api, event, 'hold', { objects: ['A-1', 'A-2'], holdToken: token });
    await expireIn(ctx.api, token, 0);
    const infos = await objectInfos(ctx.api, event, ['A-1', 'A-2']);
    for (const label of ['A-1', 'A-2']) {
      expect(infos[label]).toMatchObject({ status: 'free', isAvailable: true, availabilityReason: 'available' });
      expect(infos[label]!.holdToken).toBeUndefined();
    }
    await done(ctx.api, event, 'book', { objects: ['A-1'], orderId: 'someone-else' });
    const other = await holdToken(ctx.api);
    await done(ctx.api, event, 'hold', { objects: ['A-2'], holdToken: other });
    expect(await objectInfos(ctx.api, event, ['A-1', 'A-2'])).toMatchObject({
      'A-1': { status: 'booked', orderId: 'someone-else' },
      'A-2': { status: 'reservedByToken', holdToken: other },
    });
  });

  it('after expiry the token holds nothing: releasing with it is refused, and so is releasing the free seat', async () => {
    await done(ctx.api, event, 'hold', { objects: ['A-1'], holdToken: token });
    await expireIn(ctx.api, token, 0);
    expectError(await action(ctx.api, event, 'release', { objects: ['A-1'], holdToken: token }), 400, 'HOLD_TOKEN_NOT_FOUND');
    expectError(await action(ctx.api, event, 'release', { objects: ['A-1'] }), 400, 'OBJECT_NOT_RELEASABLE');
  });

  it('a held resale seat goes back to resale when the hold expires', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    await done(ctx.api, event, 'put-up-for-resale', { objects: ['A-1'] });
    await done(ctx.api, event, 'hold', { objects: ['A-1'], holdToken: token });
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('reservedByToken');
    await expireIn(ctx.api, token, 0);
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('resale');
  });

  it('a held resale seat booked with the token and released goes back to resale', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    await done(ctx.api, event, 'put-up-for-resale', { objects: ['A-1'] });
    await done(ctx.api, event, 'hold', { objects: ['A-1'], holdToken: token });
    await done(ctx.api, event, 'book', { objects: ['A-1'], holdToken: token });
    await done(ctx.api, event, 'release', { objects: ['A-1'] });
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('resale');
  });

  it('expiry reaches every event the token holds something in', async () => {
    const other = await createEvent(ctx.api, ctx.chartKey);
    await done(ctx.api, event, 'hold', { objects: ['A-1'], holdToken: token });
    await done(ctx.api, other, 'hold', { objects: ['B-1', { objectId: 'GA2', quantity: 4 }], holdToken: token });
    await expireIn(ctx.api, token, 0);
    expect((await objectInfo(ctx.api, event, 'A-1')).status).toBe('free');
    const infos = await objectInfos(ctx.api, other, ['B-1', 'GA2']);
    expect(infos['B-1']!.status).toBe('free');
    expect(infos.GA2).toMatchObject({ numHeld: 0, numFree: 100 });
    expect(infos.GA2!.holds).toBeUndefined();
  });

  it('extending the expiry keeps the holds, for seats and GA areas, and moves their expiry with the token', async () => {
    const short = await holdToken(ctx.api, 1);
    await done(ctx.api, event, 'hold', { objects: ['A-1', { objectId: 'GA1', quantity: 3 }], holdToken: short });
    await expireIn(ctx.api, short, 30);
    const expiresAt = await tokenExpiresAt(short);
    expect(expiresAt).toBeGreaterThan(Date.now() + 29 * 60_000);

    const infos = await objectInfos(ctx.api, event, ['A-1', 'GA1']);
    expect(infos['A-1']).toMatchObject({ status: 'reservedByToken', holdToken: short });
    expect(infos.GA1).toMatchObject({ numHeld: 3, numFree: 97, holds: { [short]: { NO_TICKET_TYPE: 3 } } });
    // What the scripts read the expiry from follows the token.
    const keys = await keysOf(event);
    const { redis } = ctx.server.app.parts;
    expect(tokenEntryExpiry((await redis.hget(keys.holdTokens, short)) ?? undefined)).toBe(expiresAt);
    expect(Number(await redis.zscore(keys.gaHoldExpiry, holdMemberOf('GA1', short)))).toBe(expiresAt);

    // And shortening it to 0 afterwards still frees both.
    await expireIn(ctx.api, short, 0);
    const after = await objectInfos(ctx.api, event, ['A-1', 'GA1']);
    expect(after['A-1']!.status).toBe('free');
    expect(after.GA1).toMatchObject({ numHeld: 0, numFree: 100 });
  });

  it('holding more with a token after its expiry changed uses the new expiry', async () => {
    await done(ctx.api, event, 'hold', { objects: ['A-1'], holdToken: token });
    await expireIn(ctx.api, token, 45);
    await done(ctx.api, event, 'hold', { objects: ['A-2', { objectId: 'GA1', quantity: 1 }], holdToken: token });
    const expiresAt = await tokenExpiresAt(token);
    const keys = await keysOf(event);
    const { redis } = ctx.server.app.parts;
    expect(tokenEntryExpiry((await redis.hget(keys.holdTokens, token)) ?? undefined)).toBe(expiresAt);
    expect(Number(await redis.zscore(keys.gaHoldExpiry, holdMemberOf('GA1', token)))).toBe(expiresAt);
    await expireIn(ctx.api, token, 0);
    expect(await statuses(ctx.api, event, ['A-1', 'A-2'])).toEqual({ 'A-1': 'free', 'A-2': 'free' });
  });
});

describe('GA holds', () => {
  it('holds 3 of GA1: numHeld 3 and the token in holds; then books them with the token', async () => {
    const held = await action(ctx.api, event, 'hold', { objects: [{ objectId: 'GA1', quantity: 3 }], holdToken: token }, true);
    expect(held.status, held.text).toBe(200);
    expect(held.body.objects.GA1).toMatchObject({ status: 'reservedByToken', numHeld: 3, numBooked: 0, numFree: 97, capacity: 100 });
    expect(await objectInfo(ctx.api, event, 'GA1')).toMatchObject({
      numHeld: 3,
      numFree: 97,
      holds: { [token]: { NO_TICKET_TYPE: 3 } },
    });

    const booked = await action(ctx.api, event, 'book', { objects: [{ objectId: 'GA1', quantity: 3 }], holdToken: token }, true);
    expect(booked.status, booked.text).toBe(200);
    expect(booked.body.objects.GA1).toMatchObject({ numBooked: 3, numHeld: 0, numFree: 97 });
    const info = await objectInfo(ctx.api, event, 'GA1');
    expect(info).toMatchObject({ numBooked: 3, numHeld: 0, numFree: 97 });
    expect(info.holds).toBeUndefined();
  });

  it('the expanded hold response shows the area as object info does, holds included', async () => {
    const held = await action(ctx.api, event, 'hold', { objects: [{ objectId: 'GA1', quantity: 3 }], holdToken: token }, true);
    expect(held.status, held.text).toBe(200);
    expect(held.body.objects.GA1).toEqual(await objectInfo(ctx.api, event, 'GA1'));
  });

  it('booking more than the token holds takes the rest from the free places', async () => {
    await done(ctx.api, event, 'hold', { objects: [{ objectId: 'GA1', quantity: 2 }], holdToken: token });
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'GA1', quantity: 5 }], holdToken: token });
    expect(await objectInfo(ctx.api, event, 'GA1')).toMatchObject({ numBooked: 5, numHeld: 0, numFree: 95 });
  });

  it('places held by one token are not free for others', async () => {
    await done(ctx.api, event, 'hold', { objects: [{ objectId: 'GA2', quantity: 98 }], holdToken: token });
    const other = await holdToken(ctx.api);
    expectError(await action(ctx.api, event, 'hold', { objects: [{ objectId: 'GA2', quantity: 3 }], holdToken: other }), 400, 'NOT_ENOUGH_FREE_PLACES');
    expectError(await action(ctx.api, event, 'book', { objects: [{ objectId: 'GA2', quantity: 3 }] }), 400, 'NOT_ENOUGH_FREE_PLACES');
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'GA2', quantity: 2 }] });
    expect(await objectInfo(ctx.api, event, 'GA2')).toMatchObject({ numBooked: 2, numHeld: 98, numFree: 0, isAvailable: false });
  });

  it('a fully held area shows reservedByToken', async () => {
    await done(ctx.api, event, 'hold', { objects: [{ objectId: 'GA2', quantity: 100 }], holdToken: token });
    expect(await objectInfo(ctx.api, event, 'GA2')).toMatchObject({ status: 'reservedByToken', numHeld: 100, numFree: 0 });
  });

  it('two tokens hold in one area; each is listed and released on its own', async () => {
    const other = await holdToken(ctx.api);
    await done(ctx.api, event, 'hold', { objects: ['GA1', 'GA1'], holdToken: token });
    await done(ctx.api, event, 'hold', { objects: [{ objectId: 'GA1', quantity: 5 }], holdToken: other });
    expect(await objectInfo(ctx.api, event, 'GA1')).toMatchObject({
      numHeld: 7,
      numFree: 93,
      holds: { [token]: { NO_TICKET_TYPE: 2 }, [other]: { NO_TICKET_TYPE: 5 } },
    });
    await done(ctx.api, event, 'release', { objects: [{ objectId: 'GA1', quantity: 4 }], holdToken: other });
    expect(await objectInfo(ctx.api, event, 'GA1')).toMatchObject({
      numHeld: 3,
      holds: { [token]: { NO_TICKET_TYPE: 2 }, [other]: { NO_TICKET_TYPE: 1 } },
    });
    await expireIn(ctx.api, token, 0);
    expect(await objectInfo(ctx.api, event, 'GA1')).toMatchObject({ numHeld: 1, numFree: 99, holds: { [other]: { NO_TICKET_TYPE: 1 } } });
  });

  it('releasing more than the token holds → 400 HOLD_TOKEN_MISMATCH, nothing released', async () => {
    await done(ctx.api, event, 'hold', { objects: [{ objectId: 'GA1', quantity: 2 }], holdToken: token });
    expectError(await action(ctx.api, event, 'release', { objects: [{ objectId: 'GA1', quantity: 3 }], holdToken: token }), 400, 'HOLD_TOKEN_MISMATCH');
    expect(await objectInfo(ctx.api, event, 'GA1')).toMatchObject({ numHeld: 2 });
  });

  it('expiry at 0 frees the held places at once', async () => {
    await done(ctx.api, event, 'hold', { objects: [{ objectId: 'GA2', quantity: 100 }], holdToken: token });
    await expireIn(ctx.api, token, 0);
    expect(await objectInfo(ctx.api, event, 'GA2')).toMatchObject({ status: 'free', numHeld: 0, numFree: 100 });
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'GA2', quantity: 100 }] });
    expect(await objectInfo(ctx.api, event, 'GA2')).toMatchObject({ status: 'booked', numBooked: 100, numHeld: 0, numFree: 0 });
  });

  it('an expired token books nothing, and its former holds are free for others', async () => {
    await done(ctx.api, event, 'hold', { objects: [{ objectId: 'GA2', quantity: 100 }], holdToken: token });
    await expireIn(ctx.api, token, 0);
    expectError(await action(ctx.api, event, 'book', { objects: [{ objectId: 'GA2', quantity: 10 }], holdToken: token }), 400, 'HOLD_TOKEN_NOT_FOUND');
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'GA2', quantity: 10 }] });
    expect(await objectInfo(ctx.api, event, 'GA2')).toMatchObject({ numBooked: 10, numHeld: 0, numFree: 90 });
  });
});
