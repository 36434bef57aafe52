import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { layoutVersionOf } from '../../src/domain/eventLayout.js';
import { buildObjectIndex } from '../../src/domain/objectIndex.js';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { useEventPerTest } from '../support/eventPerTest.js';
import { createEvent } from '../support/events.js';
import { basic, call, expectError, rawGet, spawnServer, testEnv, type RawResponse } from '../support/harness.js';

// GET /events/{key}/layout: every object of the event's chart at its drawing position, for
// a page to draw (the box office), and the workspace's public key for the status stream. The
// objects in the chart version's fixed order, named by layoutVersion; the body made once per
// chart version, sent brotli or gzip as Accept-Encoding prefers, with an ETag and 304.

const CHART_ORDER = buildObjectIndex(rowsWithoutSections).objects.map((object) => object.label);

describe('event layout', () => {
  let event = '';
  const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key));
  const get = (path: string, headers: Record<string, string> = {}) => rawGet(ctx.server.url + path, { authorization: basic(ctx.company.workspace.secretKey), ...headers });
  const layoutOf = (eventKey: string, headers: Record<string, string> = {}) => get(`/events/${eventKey}/layout`, headers);
  /** The body as JSON, decoded as its Content-Encoding says. */
  const decoded = (response: RawResponse) => {
    const coding = response.headers['content-encoding'];
    const bytes = coding === 'br' ? brotliDecompressSync(response.body) : coding === 'gzip' ? gunzipSync(response.body) : response.body;
    return JSON.parse(bytes.toString('utf8'));
  };

  it('places every object where the drawing has it, with its category', async () => {
    const layout = await ctx.api.get(`/events/${event}/layout`);
    expect(layout.status, layout.text).toBe(200);
    expect(layout.body.publicKey).toBe(ctx.company.workspace.key);
    const labels = layout.body.objects.map((o: { label: string }) => o.label);
    expect(labels).toHaveLength(34);
    expect(new Set(labels).size).toBe(34);
    // Row A starts at (151.94, 99.56), seats 20 apart; GA1 is centred at (400, 120).
    const byLabel = new Map(layout.body.objects.map((o: { label: string }) => [o.label, o]));
    expect(byLabel.get('A-1')).toMatchObject({ objectType: 'seat', x: expect.closeTo(151.94, 1), y: expect.closeTo(99.56, 1) });
    expect((byLabel.get('A-2') as { x: number }).x - (byLabel.get('A-1') as { x: number }).x).toBeCloseTo(20, 1);
    expect(byLabel.get('GA1')).toMatchObject({ objectType: 'generalAdmission', x: 400, y: 120, capacity: 100, categoryKey: '9' });
    expect(layout.body.categories.map((c: { key: string }) => c.key)).toContain('9');
    const { minX, maxX } = layout.body.bounds;
    expect(minX).toBeCloseTo(151.94, 1);
    expect(maxX).toBeGreaterThanOrEqual(500);
  });

  it("lists the objects in the chart index's order, named by a layoutVersion the same on every request and process", async () => {
    const first = await layoutOf(event);
    expect(first.status).toBe(200);
    const body = decoded(first);
    expect(body.objects.map((o: { label: string }) => o.label)).toEqual(CHART_ORDER);
    expect(body.layoutVersion).toBe(layoutVersionOf(buildObjectIndex(rowsWithoutSections)));
    expect(body.layoutVersion).toMatch(/^[0-9a-f]{16}$/);
    // Another event of the chart, asked again: the same bytes, the same tag.
    const other = await layoutOf(await createEvent(ctx.api, ctx.chartKey));
    expect(other.body.equals(first.body)).toBe(true);
    expect(other.headers.etag).toBe(first.headers.etag);

    // Another server process on the same stores makes the same bytes.
    const spawned = await spawnServer(testEnv({ MONGODB_DB: ctx.server.app.parts.db.databaseName }));
    try {
      const there = await rawGet(`${spawned.url}/events/${event}/layout`, { authorization: basic(ctx.company.workspace.secretKey) });
      expect(there.status).toBe(200);
      expect(there.body.equals(first.body)).toBe(true);
      expect(there.headers.etag).toBe(first.headers.etag);
    } finally {
      spawned.child.kill('SIGTERM');
      await spawned.exited;
    }
  });

  it('changes the ETag with a published change of categories, and the layoutVersion too once the objects change', async () => {
    const chart = await uploadDrawing(ctx.api, rowsWithoutSections);
    const key = await createEvent(ctx.api, chart.key);
    const before = await layoutOf(key);
    const publish = async () => expect((await ctx.api.post(`/charts/${chart.key}/version/draft/actions/publish`)).status).toBe(204);

    // A category renamed: the same objects in the same order, other bytes.
    expect((await ctx.api.post(`/charts/${chart.key}/categories/9`, { label: 'Premium' })).status).toBe(204);
    // Drafted, not published yet: nothing changes.
    expect((await layoutOf(key)).headers.etag).toBe(before.headers.etag);
    await publish();
    const renamed = await layoutOf(key);
    expect(renamed.headers.etag).not.toBe(before.headers.etag);
    expect(decoded(renamed).layoutVersion).toBe(decoded(before).layoutVersion);
    expect(decoded(renamed).categories.find((c: { key: string }) => c.key === '9').label).toBe('Premium');
    // The old tag is stale now: the whole body again.
    expect((await layoutOf(key, { 'if-none-match': before.headers.etag as string })).status).toBe(200);

    // A seat fewer in row A: another order, another layoutVersion.
    const workspace = (await ctx.server.app.parts.repos.workspaces.findById(ctx.company.workspace.id))!;
    await ctx.server.app.parts.charts.editDrawing(workspace, chart.key, (drawing) => void drawing.subChart!.rows![0]!.seats!.pop());
    await publish();
    const fewer = await layoutOf(key);
    const labels = decoded(fewer).objects.map((o: { label: string }) => o.label);
    expect(labels).toEqual(CHART_ORDER.filter((label) => label !== 'A-8'));
    expect(decoded(fewer).layoutVersion).not.toBe(decoded(renamed).layoutVersion);
    expect(fewer.headers.etag).not.toBe(renamed.headers.etag);
  });

  it('sends brotli or gzip as Accept-Encoding prefers, the same JSON either way, and identity when it accepts neither', async () => {
    const plain = await layoutOf(event);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    expect(plain.headers['cache-control']).toBe('no-cache');
    expect(plain.headers['content-type']).toBe('application/json');
    const json = decoded(plain);
    const cases: [string, string | undefined][] = [
      ['gzip, deflate, br', 'br'],
      ['br;q=0.5, gzip', 'gzip'],
      ['gzip', 'gzip'],
      ['br', 'br'],
      ['*', 'br'],
      ['br;q=0, *', 'gzip'],
      ['gzip;q=0, br;q=0', undefined],
      ['deflate', undefined],
      ['identity', undefined],
    ];
    const etags = new Set<string>();
    for (const [acceptEncoding, coding] of cases) {
      const answer = await layoutOf(event, { 'accept-encoding': acceptEncoding });
      expect(answer.status, acceptEncoding).toBe(200);
      expect(answer.headers['content-encoding'], acceptEncoding).toBe(coding);
      expect(answer.headers.vary, acceptEncoding).toBe('Accept-Encoding');
      expect(decoded(answer), acceptEncoding).toEqual(json);
      if (coding) expect(answer.body.length, acceptEncoding).toBeLessThan(plain.body.length);
      etags.add(answer.headers.etag as string);
    }
    // One strong tag per coding: identity, gzip, br.
    expect(etags.size).toBe(3);
    for (const etag of etags) expect(etag).toMatch(/^"[^"]+"$/);
  });

  it('answers 304 without a body when If-None-Match names the ETag, exactly, in a list, weak or as *; 200 for another tag', async () => {
    const accept = { 'accept-encoding': 'gzip, br' };
    const first = await layoutOf(event, accept);
    const etag = first.headers.etag as string;
    for (const ifNoneMatch of [etag, `"stale", ${etag}`, `W/${etag}`, '*', ` ${etag} `]) {
      const again = await layoutOf(event, { ...accept, 'if-none-match': ifNoneMatch });
      expect(again.status, ifNoneMatch).toBe(304);
      expect(again.body.length, ifNoneMatch).toBe(0);
      expect(again.headers.etag, ifNoneMatch).toBe(etag);
      expect(again.headers.vary, ifNoneMatch).toBe('Accept-Encoding');
      expect(again.headers['cache-control'], ifNoneMatch).toBe('no-cache');
    }
    for (const ifNoneMatch of ['"stale"', `W/"stale", "other"`, etag.slice(0, -2) + '"']) {
      const whole = await layoutOf(event, { ...accept, 'if-none-match': ifNoneMatch });
      expect(whole.status, ifNoneMatch).toBe(200);
      expect(whole.body.equals(first.body), ifNoneMatch).toBe(true);
    }
    // The tag of another coding names other bytes: a client that now accepts only gzip gets them.
    const gzip = await layoutOf(event, { 'accept-encoding': 'gzip', 'if-none-match': etag });
    expect(gzip.status).toBe(200);
    expect(gzip.headers['content-encoding']).toBe('gzip');
  });

  it('answers 404 for an unknown event and 401 for a wrong key, as every route does', async () => {
    expectError(await ctx.api.get('/events/no-such-event/layout'), 404, 'EVENT_NOT_FOUND');
    expectError(await ctx.api.get('/events/no-such-event/layout', { headers: { 'if-none-match': '*' } }), 404, 'EVENT_NOT_FOUND');
    expectError(await call(ctx.server.url, 'GET', `/events/${event}/layout`, { key: '00000000-0000-4000-8000-000000000000' }), 401, 'UNAUTHORIZED');
    expectError(await call(ctx.server.url, 'GET', `/events/${event}/layout`), 401, 'UNAUTHORIZED');
  });
});
