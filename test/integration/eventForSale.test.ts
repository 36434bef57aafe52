import { beforeAll, describe, expect, it } from 'vitest';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { dayOf } from '../../src/domain/forSaleLimit.js';
import { forSaleEditsKey } from '../../src/inventory/eventKeys.js';
import { retrieveEvent, saleConfigOf, storedEvent, type EventRecord } from '../support/eventAdmin.js';
import { createEvent, eventPath } from '../support/events.js';
import { expectError, useServerWithCompany, type Response } from '../support/harness.js';

// The for-sale config of an event (docs/seatsio-behaviour.md,
// "For-sale config"): replacing it, opening everything up, editing it object by
// object, the daily limit of 10 counted calls per event, and the Redis fields the sales
// flow checks. The chart: rows A-D of 8 seats (A, B in Cat1 = key 9; C, D in Cat2 = key 10),
// GA1 (Cat1) and GA2 (Cat2) of 100 places each.

type ForSaleConfig = NonNullable<EventRecord['forSaleConfig']>;

const SEATS = ['A', 'B', 'C', 'D'].flatMap((row) => Array.from({ length: 8 }, (_, i) => `${row}-${i + 1}`));

/** The start of the next UTC day, when the daily count starts again. */
function nextUtcMidnight(): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** Redis fields of a not-for-sale map: label -> places. */
const notForSaleFields = (places: Record<string, number>) =>
  Object.fromEntries(Object.entries(places).map(([label, n]) => [`n:${label}`, String(n)]));

describe('event for-sale config', () => {
  const ctx = useServerWithCompany();
  let chartKey: string;

  beforeAll(async () => {
    chartKey = (await uploadDrawing(ctx.api, rowsWithoutSections)).key;
  });

  const configOf = async (key: string) => (await retrieveEvent(ctx.api, key)).forSaleConfig;
  const redisOf = (key: string) => saleConfigOf(ctx.server, ctx.company.workspace.id, key);
  const action = (key: string, name: string, body?: unknown) => ctx.api.post(eventPath(key, `/actions/${name}`), body);

  function expectRateLimitInfo(body: { rateLimitRemainingCalls: number; rateLimitResetDate: string }, remaining: number) {
    expect(body).toEqual({ rateLimitRemainingCalls: remaining, rateLimitResetDate: nextUtcMidnight().toISOString() });
  }

  async function edit(key: string, body: unknown): Promise<{ forSaleConfig: ForSaleConfig | null; rateLimitInfo: { rateLimitRemainingCalls: number; rateLimitResetDate: string } }> {
    const response = await action(key, 'edit-for-sale-config', body);
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body)).toEqual(['forSaleConfig', 'rateLimitInfo']);
    expect(response.body.forSaleConfig).toEqual(await configOf(key));
    return response.body;
  }

  describe('mark as (not) for sale', () => {
    it('marks objects, area places and categories as not for sale: 200 with the limit, config and Redis replaced', async () => {
      const key = await createEvent(ctx.api, chartKey);
      const response = await action(key, 'mark-as-not-for-sale', { objects: ['A-1', 'GA2'], areaPlaces: { GA1: 5 }, categories: ['Cat2'] });
      expect(response.status, response.text).toBe(200);
      expectRateLimitInfo(response.body, 9);
      expect(await configOf(key)).toEqual({ forSale: false, objects: ['A-1', 'GA2'], areaPlaces: { GA1: 5 }, categories: ['Cat2'] });
      const cat2Seats = SEATS.filter((s) => s.startsWith('C') || s.startsWith('D'));
      expect(await redisOf(key)).toEqual(
        notForSaleFields({ 'A-1': 1, GA1: 5, GA2: 100, ...Object.fromEntries(cat2Seats.map((s) => [s, 1])) }),
      );

      // The next call replaces the whole config.
      const second = await action(key, 'mark-as-not-for-sale', { categories: [9] });
      expect(second.status, second.text).toBe(200);
      expectRateLimitInfo(second.body, 8);
      expect(await configOf(key)).toEqual({ forSale: false, objects: [], areaPlaces: {}, categories: [9] });
      const cat1Seats = SEATS.filter((s) => s.startsWith('A') || s.startsWith('B'));
      expect(await redisOf(key)).toEqual(notForSaleFields({ GA1: 100, ...Object.fromEntries(cat1Seats.map((s) => [s, 1])) }));
    });

    it('marks objects as the only ones for sale: everything else is not for sale in Redis', async () => {
      const key = await createEvent(ctx.api, chartKey, { categories: [{ key: 'vip', label: 'VIP' }], objectCategories: { 'D-8': 'vip' } });
      const response = await action(key, 'mark-as-for-sale', { objects: ['A-1', 'A-2'], areaPlaces: { GA1: 30 }, categories: ['vip'] });
      expect(response.status, response.text).toBe(200);
      expectRateLimitInfo(response.body, 9);
      expect(await configOf(key)).toEqual({ forSale: true, objects: ['A-1', 'A-2'], areaPlaces: { GA1: 30 }, categories: ['vip'] });
      const closed = SEATS.filter((s) => !['A-1', 'A-2', 'D-8'].includes(s));
      expect(await redisOf(key)).toEqual(notForSaleFields({ ...Object.fromEntries(closed.map((s) => [s, 1])), GA1: 70, GA2: 100 }));
    });

    it('takes every field as optional', async () => {
      const key = await createEvent(ctx.api, chartKey);
      expect((await action(key, 'mark-as-for-sale', {})).status).toBe(200);
      expect(await configOf(key)).toEqual({ forSale: true, objects: [], areaPlaces: {}, categories: [] });
      expect((await action(key, 'mark-as-not-for-sale')).status).toBe(200);
      expect(await configOf(key)).toEqual({ forSale: false, objects: [], areaPlaces: {}, categories: [] });
      expect((await action(key, 'mark-as-not-for-sale', { objects: null, areaPlaces: null, categories: null })).status).toBe(200);
      expect(await redisOf(key)).toEqual({});
    });

    it('marks everything as for sale with 204 and no config, without using up a call', async () => {
      const key = await createEvent(ctx.api, chartKey, { forSaleConfig: { forSale: false, objects: ['A-1'] } });
      expect(await redisOf(key)).toEqual({ 'n:A-1': '1' });
      const response = await action(key, 'mark-everything-as-for-sale');
      expect(response.status, response.text).toBe(204);
      expect(await configOf(key)).toBeNull();
      expect(await redisOf(key)).toEqual({});
      expect((await action(key, 'mark-everything-as-for-sale')).status).toBe(204);
      expectRateLimitInfo((await action(key, 'mark-as-for-sale', { objects: ['A-1'] })).body, 9);
    });

    it('keeps labels and categories the chart does not have: stored, matching nothing', async () => {
      const key = await createEvent(ctx.api, chartKey);
      const marked = await action(key, 'mark-as-not-for-sale', { objects: ['Z-1', 'A-1'], areaPlaces: { nowhere: 3 }, categories: ['no such category', 11] });
      expect(marked.status, marked.text).toBe(200);
      expect(await configOf(key)).toEqual({ forSale: false, objects: ['Z-1', 'A-1'], areaPlaces: { nowhere: 3 }, categories: ['no such category', 11] });
      // Only A-1 is taken off sale in the sales flow.
      expect(await redisOf(key)).toEqual({ 'n:A-1': '1' });
      const edited = await edit(key, { notForSale: [{ object: 'Y-9' }], forSale: [{ object: 'Z-1' }] });
      expect(edited.forSaleConfig).toEqual({ forSale: false, objects: ['A-1', 'Y-9'], areaPlaces: { nowhere: 3 }, categories: ['no such category', 11] });
      const created = await createEvent(ctx.api, chartKey, { forSaleConfig: { forSale: true, objects: ['X'], categories: ['Nope'] } });
      expect(await configOf(created)).toEqual({ forSale: true, objects: ['X'], areaPlaces: {}, categories: ['Nope'] });
    });

    it('refuses bad area places with 400, counting nothing and changing nothing', async () => {
      const key = await createEvent(ctx.api, chartKey, { forSaleConfig: { forSale: false, objects: ['B-1'] } });
      const before = await configOf(key);
      const cases: [unknown, string][] = [
        [{ objects: 'A-1' }, 'GENERAL_ERROR'],
        [{ areaPlaces: { 'A-1': 1 } }, 'GENERAL_ERROR'],
        [{ areaPlaces: { GA1: 0 } }, 'GENERAL_ERROR'],
        [{ areaPlaces: { GA1: 101 } }, 'GENERAL_ERROR'],
        [{ areaPlaces: { GA1: 2.5 } }, 'GENERAL_ERROR'],
        [{ areaPlaces: { nowhere: 0 } }, 'GENERAL_ERROR'],
      ];
      for (const name of ['mark-as-for-sale', 'mark-as-not-for-sale']) {
        for (const [body, code] of cases) expectError(await action(key, name, body), 400, code);
      }
      expect(await configOf(key)).toEqual(before);
      expect(await redisOf(key)).toEqual({ 'n:B-1': '1' });
      expectRateLimitInfo((await action(key, 'mark-as-not-for-sale', { objects: ['B-2'] })).body, 9);

      expectError(await action('no-such-event', 'mark-as-for-sale', {}), 404, 'EVENT_NOT_FOUND');
      expectError(await action('no-such-event', 'mark-everything-as-for-sale'), 404, 'EVENT_NOT_FOUND');
      expectError(await action('no-such-event', 'edit-for-sale-config', {}), 404, 'EVENT_NOT_FOUND');
    });

    it('takes the config on create, with the same checks', async () => {
      const key = await createEvent(ctx.api, chartKey, { forSaleConfig: { forSale: false, objects: ['A-1'], areaPlaces: { GA1: 5 }, categories: ['Cat1'] } });
      expect(await configOf(key)).toEqual({ forSale: false, objects: ['A-1'], areaPlaces: { GA1: 5 }, categories: ['Cat1'] });
      const cat1Seats = SEATS.filter((s) => s.startsWith('A') || s.startsWith('B'));
      expect(await redisOf(key)).toEqual(notForSaleFields({ ...Object.fromEntries(cat1Seats.map((s) => [s, 1])), GA1: 100 }));
      expectError(await ctx.api.post('/events', { chartKey, eventKey: 'bad-config', forSaleConfig: { forSale: true, areaPlaces: { 'A-1': 2 } } }), 400, 'GENERAL_ERROR');
      expectError(await ctx.api.post('/events', { chartKey, eventKey: 'bad-config', forSaleConfig: { objects: ['A-1'] } }), 400, 'GENERAL_ERROR');
      expectError(await ctx.api.get('/events/bad-config'), 404, 'EVENT_NOT_FOUND');
    });
  });

  describe('edit-for-sale-config', () => {
    it('edits a not-for-sale list: forSale removes, notForSale adds; every edit counts, opening up too', async () => {
      const key = await createEvent(ctx.api, chartKey, { forSaleConfig: { forSale: false, objects: ['A-1', 'A-2', 'A-3'] } });
      const opened = await edit(key, { forSale: [{ object: 'A-1' }, { object: 'A-2' }] });
      expect(opened.forSaleConfig).toEqual({ forSale: false, objects: ['A-3'], areaPlaces: {}, categories: [] });
      expectRateLimitInfo(opened.rateLimitInfo, 9);
      expect(await redisOf(key)).toEqual({ 'n:A-3': '1' });

      const closed = await edit(key, { notForSale: [{ object: 'B-1' }], forSale: [{ object: 'A-3' }] });
      expect(closed.forSaleConfig).toEqual({ forSale: false, objects: ['B-1'], areaPlaces: {}, categories: [] });
      expectRateLimitInfo(closed.rateLimitInfo, 8);
      expect(await redisOf(key)).toEqual({ 'n:B-1': '1' });
    });

    it('creates a not-for-sale config on an event without one; opening up such an event keeps none', async () => {
      const key = await createEvent(ctx.api, chartKey);
      const free = await edit(key, { forSale: [{ object: 'A-1' }] });
      expect(free.forSaleConfig).toBeNull();
      expectRateLimitInfo(free.rateLimitInfo, 9);

      const closed = await edit(key, { notForSale: [{ object: 'A-1' }, { object: 'A-2' }] });
      expect(closed.forSaleConfig).toEqual({ forSale: false, objects: ['A-1', 'A-2'], areaPlaces: {}, categories: [] });
      expectRateLimitInfo(closed.rateLimitInfo, 8);
    });

    it('counts GA places up and down with a quantity; without one the whole area', async () => {
      const key = await createEvent(ctx.api, chartKey);
      expect((await edit(key, { notForSale: [{ object: 'GA1', quantity: 5 }] })).forSaleConfig!.areaPlaces).toEqual({ GA1: 5 });
      expect((await edit(key, { notForSale: [{ object: 'GA1', quantity: 3 }] })).forSaleConfig!.areaPlaces).toEqual({ GA1: 8 });
      expect(await redisOf(key)).toEqual({ 'n:GA1': '8' });
      expect((await edit(key, { forSale: [{ object: 'GA1', quantity: 2 }] })).forSaleConfig!.areaPlaces).toEqual({ GA1: 6 });
      expect((await edit(key, { notForSale: [{ object: 'GA1', quantity: 100 }] })).forSaleConfig!.areaPlaces).toEqual({ GA1: 100 });
      expect((await edit(key, { forSale: [{ object: 'GA1', quantity: 100 }] })).forSaleConfig).toEqual({
        forSale: false, objects: [], areaPlaces: {}, categories: [],
      });
      expect((await edit(key, { notForSale: [{ object: 'GA2' }] })).forSaleConfig!.objects).toEqual(['GA2']);
      const partly = await edit(key, { forSale: [{ object: 'GA2', quantity: 40 }] });
      expect(partly.forSaleConfig).toMatchObject({ objects: [], areaPlaces: { GA2: 60 } });
      expect(await redisOf(key)).toEqual({ 'n:GA2': '60' });
    });

    it('edits a for-sale list the other way round: forSale adds, notForSale removes', async () => {
      const key = await createEvent(ctx.api, chartKey, { forSaleConfig: { forSale: true, objects: ['A-1'], areaPlaces: { GA1: 10 } } });
      const added = await edit(key, { forSale: [{ object: 'A-2' }, { object: 'GA1', quantity: 5 }] });
      expect(added.forSaleConfig).toEqual({ forSale: true, objects: ['A-1', 'A-2'], areaPlaces: { GA1: 15 }, categories: [] });
      expectRateLimitInfo(added.rateLimitInfo, 9);
      const removed = await edit(key, { notForSale: [{ object: 'A-1' }, { object: 'GA1', quantity: 15 }] });
      expect(removed.forSaleConfig).toEqual({ forSale: true, objects: ['A-2'], areaPlaces: {}, categories: [] });
      expectRateLimitInfo(removed.rateLimitInfo, 8);
      expect((await redisOf(key))['n:A-2']).toBeUndefined();
      expect((await redisOf(key))['n:GA1']).toBe('100');
    });

    it('refuses bad edits with 400, counting nothing and changing nothing', async () => {
      const key = await createEvent(ctx.api, chartKey, { forSaleConfig: { forSale: false, objects: ['C-1'] } });
      const before = await configOf(key);
      const cases: [unknown, string][] = [
        [{ notForSale: [{ object: 'Z-1', quantity: 0 }] }, 'GENERAL_ERROR'],
        [{ notForSale: [{ object: 'A-1', quantity: 1 }] }, 'GENERAL_ERROR'],
        [{ notForSale: [{ object: 'GA1', quantity: 101 }] }, 'GENERAL_ERROR'],
        [{ notForSale: [{ object: 'GA1', quantity: 0 }] }, 'GENERAL_ERROR'],
        [{ notForSale: [{ object: 'A-1' }], forSale: [{ object: 'A-1' }] }, 'GENERAL_ERROR'],
        [{ notForSale: [{ quantity: 1 }] }, 'GENERAL_ERROR'],
        [{ notForSale: 'A-1' }, 'GENERAL_ERROR'],
      ];
      for (const [body, code] of cases) expectError(await action(key, 'edit-for-sale-config', body), 400, code);
      expect(await configOf(key)).toEqual(before);
      expectRateLimitInfo((await edit(key, { notForSale: [{ object: 'C-2' }] })).rateLimitInfo, 9);
    });

    it('edits several events in one call, answering per event key', async () => {
      const first = await createEvent(ctx.api, chartKey);
      const second = await createEvent(ctx.api, chartKey, { forSaleConfig: { forSale: false, objects: ['A-1', 'A-2'] } });
      const response = await ctx.api.post('/events/actions/edit-for-sale-config', {
        events: { [first]: { notForSale: [{ object: 'B-1' }] }, [second]: { forSale: [{ object: 'A-1' }] } },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({
        [first]: {
          forSaleConfig: { forSale: false, objects: ['B-1'], areaPlaces: {}, categories: [] },
          rateLimitInfo: { rateLimitRemainingCalls: 9, rateLimitResetDate: nextUtcMidnight().toISOString() },
        },
        [second]: {
          forSaleConfig: { forSale: false, objects: ['A-2'], areaPlaces: {}, categories: [] },
          rateLimitInfo: { rateLimitRemainingCalls: 9, rateLimitResetDate: nextUtcMidnight().toISOString() },
        },
      });
      expect(await redisOf(first)).toEqual({ 'n:B-1': '1' });
      expect(await redisOf(second)).toEqual({ 'n:A-2': '1' });

      // One bad event: nothing changes anywhere.
      const refused: [unknown, number, string][] = [
        [{ events: { [first]: { notForSale: [{ object: 'B-2' }] }, 'no-such-event': { notForSale: [{ object: 'A-1' }] } } }, 404, 'EVENT_NOT_FOUND'],
        [{ events: { [first]: { notForSale: [{ object: 'B-2' }] }, [second]: { notForSale: [{ object: 'A-1', quantity: 1 }] } } }, 400, 'GENERAL_ERROR'],
        [{ events: {} }, 400, 'GENERAL_ERROR'],
        [{}, 400, 'GENERAL_ERROR'],
      ];
      for (const [body, status, code] of refused) expectError(await ctx.api.post('/events/actions/edit-for-sale-config', body), status, code);
      expect(await configOf(first)).toEqual({ forSale: false, objects: ['B-1'], areaPlaces: {}, categories: [] });
      expectRateLimitInfo((await edit(first, { notForSale: [{ object: 'B-3' }] })).rateLimitInfo, 8);
    });
  });

  describe('daily limit', () => {
    function expectLimited(response: Response) {
      expectError(response, 429, 'RATE_LIMIT_EXCEEDED');
      expect(response.body.errors[0].message).toBe('Rate limit exceeded');
      const retryAfter = Number(response.headers.get('retry-after'));
      const untilReset = (nextUtcMidnight().getTime() - Date.now()) / 1000;
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThan(0);
      expect(Math.abs(retryAfter - untilReset)).toBeLessThanOrEqual(5);
    }

    it('allows 10 counted calls per event per day, counting down 9..0; the 11th gets 429 with Retry-After and changes nothing', async () => {
      const key = await createEvent(ctx.api, chartKey);
      const other = await createEvent(ctx.api, chartKey);
      expectError(await action(key, 'mark-as-not-for-sale', { areaPlaces: { 'A-1': 1 } }), 400, 'GENERAL_ERROR');
      for (let i = 0; i < 10; i++) {
        const name = i % 2 === 0 ? 'mark-as-not-for-sale' : 'mark-as-for-sale';
        const response = i === 9 ? await action(key, 'edit-for-sale-config', { notForSale: [{ object: 'D-8' }] }) : await action(key, name, { objects: [SEATS[i]!] });
        expect(response.status, response.text).toBe(200);
        expectRateLimitInfo(i === 9 ? response.body.rateLimitInfo : response.body, 9 - i);
      }
      const config = await configOf(key);
      const redis = await redisOf(key);
      // The 9th call marked B-1 as not for sale, the 10th added D-8.
      expect(config).toEqual({ forSale: false, objects: ['B-1', 'D-8'], areaPlaces: {}, categories: [] });

      expectLimited(await action(key, 'mark-as-not-for-sale', { objects: ['B-1'] }));
      expectLimited(await action(key, 'mark-as-for-sale', { objects: ['B-1'] }));
      expectLimited(await action(key, 'edit-for-sale-config', { notForSale: [{ object: 'A-8' }] }));
      expectLimited(await ctx.api.post('/events/actions/edit-for-sale-config', { events: { [key]: { notForSale: [{ object: 'A-8' }] } } }));
      expect(await configOf(key)).toEqual(config);
      expect(await redisOf(key)).toEqual(redis);
      // Refused calls are not counted either.
      const stored = await storedEvent(ctx.server, ctx.company.workspace.id, key);
      expect(await ctx.server.app.parts.redis.get(forSaleEditsKey(stored, dayOf(Date.now()).day))).toBe('10');

      // Opening up is still allowed; other events have their own count.
      const free = await edit(key, { forSale: [{ object: 'B-1' }] });
      expect(free.forSaleConfig!.objects).toEqual(['D-8']);
      expectRateLimitInfo(free.rateLimitInfo, 0);
      expect((await action(key, 'mark-everything-as-for-sale')).status).toBe(204);
      expect(await configOf(key)).toBeNull();
      expectRateLimitInfo((await action(other, 'mark-as-not-for-sale', { objects: ['A-1'] })).body, 9);
      // A batch with a limited event changes none of its events.
      expectLimited(
        await ctx.api.post('/events/actions/edit-for-sale-config', {
          events: { [other]: { notForSale: [{ object: 'A-2' }] }, [key]: { notForSale: [{ object: 'A-1' }] } },
        }),
      );
      expect(await configOf(other)).toEqual({ forSale: false, objects: ['A-1'], areaPlaces: {}, categories: [] });
      expectRateLimitInfo((await action(other, 'mark-as-not-for-sale', { objects: ['A-1'] })).body, 8);
    });
  });
});
