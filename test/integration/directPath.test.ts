import { beforeAll, describe, expect, it } from 'vitest';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { seasonVersionKey } from '../../src/inventory/eventKeys.js';
import { storedEvent } from '../support/eventAdmin.js';
import { createEvent, done, objectInfos, type Action } from '../support/events.js';
import { createSeason, eventKeysOf } from '../support/seasons.js';
import { useEventPerTest } from '../support/eventPerTest.js';
import type { Response } from '../support/harness.js';

// The priority lane's direct way through (src/http/route.ts, DirectHandler; docs/performance.md,
// "The direct path") takes the plainest status changes, `{objects: [label, ...]}` with no query
// string, past the request context and the schema check. A query string sends the same
// request through the route's handler. Each request here goes both ways, on two events set
// up alike: the answers (status, error codes and messages) and what they leave behind must
// be the same.

const ctx = useEventPerTest(rowsWithoutSections, () => undefined);

/** Requests the direct way took: the service's plain change was made (or refused) for them. */
let taken = 0;
/** Hold tokens the direct way made (or refused). */
let tokensTaken = 0;
beforeAll(() => {
  const route = ctx.server.app.parts.routes.find((r) => r.method === 'POST' && r.path === '/hold-tokens')!;
  const direct = route.direct!;
  route.direct = (...args) => {
    const answer = direct(...args);
    if (answer) tokensTaken++;
    return answer;
  };
  const service = ctx.server.app.parts.statusChanges;
  const applyPlain = service.applyPlain.bind(service);
  service.applyPlain = (...args) => {
    let answer;
    try {
      answer = applyPlain(...args);
    } catch (error) {
      taken++;
      throw error;
    }
    if (answer) taken++;
    return answer;
  };
});

const WATCHED = ['A-1', 'A-2', 'A-3', 'A-4', 'B-1', 'B-2', 'GA1'];

/** An answer without what differs between any two requests (the request id). */
const answerOf = (response: Response) => ({ status: response.status, body: response.status === 204 ? null : { ...response.body, requestId: undefined } });

/** Sends the request both ways; `direct`: whether the direct way takes it (else the handler answers both). */
async function bothWays(name: Action, body: unknown, direct: boolean, setup?: (eventKey: string) => Promise<void>) {
  const [directEvent, general] = await Promise.all([createEvent(ctx.api, ctx.chartKey), createEvent(ctx.api, ctx.chartKey)]);
  for (const key of [directEvent, general]) {
    // Loaded by the catalog (the direct way takes only events it has), and set up.
    await objectInfos(ctx.api, key, ['A-1']);
    if (setup) await setup(key);
  }
  const before = taken;
  // `expand=none` answers as no query does (only `objects` expands), through the handler.
  const viaDirect = answerOf(await ctx.api.post(`/events/${directEvent}/actions/${name}`, body));
  expect(taken - before, JSON.stringify(body)).toBe(direct ? 1 : 0);
  const viaHandler = answerOf(await ctx.api.post(`/events/${general}/actions/${name}?expand=none`, body));
  expect(taken - before).toBe(direct ? 1 : 0);
  expect(viaDirect).toEqual(viaHandler);
  const [left, right] = await Promise.all([objectInfos(ctx.api, directEvent, WATCHED), objectInfos(ctx.api, general, WATCHED)]);
  expect(left).toEqual(right);
  return viaDirect;
}

describe('the direct way answers as the handler does', () => {
  it('books, releases, puts up for resale and sets a custom status', async () => {
    expect((await bothWays('book', { objects: ['A-1', 'A-2'] }, true)).status).toBe(204);
    expect((await bothWays('release', { objects: ['A-1'] }, true, (key) => done(ctx.api, key, 'book', { objects: ['A-1'] }))).status).toBe(204);
    expect((await bothWays('put-up-for-resale', { objects: ['B-1'] }, true)).status).toBe(204);
    expect((await bothWays('change-object-status', { objects: ['B-2', 'GA1'], status: 'sold-elsewhere' }, true)).status).toBe(204);
    // Any other field, or a query string, is the handler's.
    expect((await bothWays('book', { objects: ['A-1'], orderId: 'o-1' }, false)).status).toBe(204);
  });

  it('refuses alike: unknown, named twice, not free, not held, a bad status, no objects', async () => {
    const refusals: [Action, unknown, boolean, ((key: string) => Promise<void>)?][] = [
      ['book', { objects: ['A-1', 'Z-99'] }, true],
      ['book', { objects: ['A-1', 'A-1'] }, true],
      ['book', { objects: ['A-3', 'A-4'] }, true, (key) => done(ctx.api, key, 'book', { objects: ['A-4'] })],
      ['release', { objects: ['A-2'] }, true],
      ['change-object-status', { objects: ['A-1'], status: '' }, true],
      ['change-object-status', { objects: ['A-1'], status: 'x'.repeat(101) }, true],
      ['change-object-status', { objects: ['A-1'] }, true],
      ['book', { objects: [] }, false],
      ['book', { objects: ['A-1', 7] }, false],
      ['hold', { objects: ['A-1'] }, false],
      ['hold', { objects: ['A-1'], holdToken: 'no-such-token' }, true],
      ['book', { objects: ['A-1'], holdToken: 'no-such-token' }, true],
      ['hold', { objects: ['A-1'], holdToken: '' }, false],
      ['hold', { objects: ['A-1'], holdToken: 5 }, false],
    ];
    for (const [name, body, direct, setup] of refusals) {
      const answer = await bothWays(name, body, direct, setup);
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('holds, books and releases with a hold token, and refuses a token that does not hold the objects', async () => {
    const token = async () => (await ctx.api.post('/hold-tokens', {})).body.holdToken as string;
    const [mine, theirs] = [await token(), await token()];
    const held = (t: string, objects: string[]) => (key: string) => done(ctx.api, key, 'hold', { objects, holdToken: t });
    expect((await bothWays('hold', { objects: ['A-1', 'GA1'], holdToken: mine }, true)).status).toBe(204);
    expect((await bothWays('book', { objects: ['A-1', 'A-2'], holdToken: mine }, true, held(mine, ['A-1']))).status).toBe(204);
    expect((await bothWays('release', { objects: ['A-1'], holdToken: mine }, true, held(mine, ['A-1']))).status).toBe(204);
    expect((await bothWays('change-object-status', { objects: ['A-3'], status: 'reservedByToken', holdToken: mine }, true)).status).toBe(204);
    expect((await bothWays('book', { objects: ['A-1'], holdToken: theirs }, true, held(mine, ['A-1']))).status).toBe(400);
    expect((await bothWays('hold', { objects: ['A-1'], holdToken: theirs }, true, held(mine, ['A-1']))).status).toBe(400);
    // A token with anything else in the body is the handler's.
    expect((await bothWays('book', { objects: ['A-1'], holdToken: mine, orderId: 'o-2' }, false, held(mine, ['A-1']))).status).toBe(204);
  });

  it('makes hold tokens as the handler does: no body, an empty one, minutes; and refuses alike', async () => {
    const tokenAnswer = (response: Response) => ({
      status: response.status,
      body: response.status === 200 ? { ...response.body, holdToken: typeof response.body.holdToken, expiresAt: undefined } : { ...response.body, requestId: undefined },
    });
    const bodies: [unknown, boolean][] = [
      [undefined, true],
      [{}, true],
      [{ expiresInMinutes: 5 }, true],
      [{ expiresInMinutes: 0 }, false],
      [{ expiresInMinutes: 1.5 }, false],
      [{ expiresInMinutes: '5' }, false],
      [{ expiresInMinutes: 100_000 }, false],
      [{ other: 1 }, false],
      [[], false],
    ];
    for (const [body, direct] of bodies) {
      const before = tokensTaken;
      const viaDirect = await ctx.api.post('/hold-tokens', body);
      expect(tokensTaken - before, JSON.stringify(body)).toBe(direct ? 1 : 0);
      const viaHandler = await ctx.api.post('/hold-tokens?via=handler', body);
      expect(tokensTaken - before).toBe(direct ? 1 : 0);
      expect(tokenAnswer(viaDirect), JSON.stringify(body)).toEqual(tokenAnswer(viaHandler));
      if (viaDirect.status === 200) {
        // A token of the workspace that holds.
        const key = await createEvent(ctx.api, ctx.chartKey);
        await done(ctx.api, key, 'hold', { objects: ['A-1'], holdToken: viaDirect.body.holdToken });
      }
    }
  });

  it('takes the events of a season without a token: books, refuses what the season took, releases, plans again when the season changed; the season itself and tokens are the handler\'s', async () => {
    const token = (await ctx.api.post('/hold-tokens', {})).body.holdToken as string;
    const seasons = [await createSeason(ctx.api, ctx.chartKey, { numberOfEvents: 2 }), await createSeason(ctx.api, ctx.chartKey, { numberOfEvents: 2 })];
    const [viaDirect, viaHandler] = seasons.map((season) => ({ season: season.key as string, event: eventKeysOf(season)[0]! }));
    for (const { season, event } of [viaDirect!, viaHandler!]) {
      await objectInfos(ctx.api, event, ['A-1']);
      await done(ctx.api, season, 'book', { objects: ['B-1'] });
    }
    /** One request on each season's first event (or on the season itself), the direct way and the handler's; the same answers and objects after. */
    const both = async (name: Action, body: unknown, direct: boolean, on: 'event' | 'season' = 'event') => {
      const before = taken;
      const answer = answerOf(await ctx.api.post(`/events/${viaDirect![on]}/actions/${name}`, body));
      expect(taken - before, JSON.stringify(body)).toBe(direct ? 1 : 0);
      expect(answer, JSON.stringify(body)).toEqual(answerOf(await ctx.api.post(`/events/${viaHandler![on]}/actions/${name}?expand=none`, body)));
      for (const of of ['event', 'season'] as const) {
        expect(await objectInfos(ctx.api, viaDirect![of], WATCHED)).toEqual(await objectInfos(ctx.api, viaHandler![of], WATCHED));
      }
      return answer;
    };
    expect((await both('book', { objects: ['A-1', 'A-2'] }, true)).status).toBe(204);
    // B-1 is booked on the season: refused in its event, nothing booked.
    const refused = await both('book', { objects: ['A-3', 'B-1'] }, true);
    expect(refused.status).toBe(400);
    expect(refused.body!.errors).toEqual([expect.objectContaining({ code: 'OBJECT_TAKEN_IN_SEASON' })]);
    expect((await both('release', { objects: ['A-1'] }, true)).status).toBe(204);
    // A token's hold and booking in a season's event go the handler's way.
    expect((await both('hold', { objects: ['A-3'], holdToken: token }, false)).status).toBe(204);
    expect((await both('book', { objects: ['A-3'], holdToken: token }, false)).status).toBe(204);
    // The season itself is the handler's.
    expect((await both('book', { objects: ['A-4'] }, false, 'season')).status).toBe(204);
    // The season's make-up changed since the event was loaded (another server added an event,
    // say): the direct way's call is refused by the function, and the change is planned again and applied.
    for (const { season } of [viaDirect!, viaHandler!]) {
      const top = await storedEvent(ctx.server, ctx.company.workspace.id, season);
      await ctx.server.app.parts.redis.set(seasonVersionKey(top), 'changed-elsewhere');
    }
    expect((await both('book', { objects: ['B-2'] }, true)).status).toBe(204);
    expect((await objectInfos(ctx.api, viaDirect!.event, ['B-2']))['B-2']).toMatchObject({ status: 'booked' });
  });
});
