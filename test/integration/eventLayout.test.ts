import { describe, expect, it } from 'vitest';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { useEventPerTest } from '../support/eventPerTest.js';
import { call, expectError } from '../support/harness.js';

// GET /events/{key}/layout: every object of the event's chart at its drawing position, for
// a page to draw (the box office), and the workspace's public key for the status stream.

describe('event layout', () => {
  let event = '';
  const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key));

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

  it('answers 404 for an unknown event and 401 for a wrong key, as every route does', async () => {
    expectError(await ctx.api.get('/events/no-such-event/layout'), 404, 'EVENT_NOT_FOUND');
    expectError(await call(ctx.server.url, 'GET', `/events/${event}/layout`, { key: '00000000-0000-4000-8000-000000000000' }), 401, 'UNAUTHORIZED');
    expectError(await call(ctx.server.url, 'GET', `/events/${event}/layout`), 401, 'UNAUTHORIZED');
  });
});
