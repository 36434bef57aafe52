import { beforeAll, describe, expect, it } from 'vitest';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { redisKeysOf, storedEvent } from '../support/eventAdmin.js';
import { createEvent, statuses } from '../support/events.js';
import { expectError, useServerWithCompany } from '../support/harness.js';
import { createSeason, eventKeysOf } from '../support/seasons.js';

// On Redis Cluster a request that changes several events is applied all or nothing only
// when its events share a hash tag (one season); otherwise it is refused with 400
// EVENTS_IN_SEVERAL_SLOTS before anything changes (docs/operations.md, "Redis Cluster"). The same
// requests on one Redis: test/integration/eventGroups.test.ts.

const ctx = useServerWithCompany();
let chartKey: string;

beforeAll(async () => {
  chartKey = (await uploadDrawing(ctx.api, rowsWithoutSections)).key;
});

/** The answer names the rule and the events, and says nothing changed. */
function expectRefused(response: Parameters<typeof expectError>[0], events: string[]) {
  expectError(response, 400, 'EVENTS_IN_SEVERAL_SLOTS');
  const message = response.body.errors[0].message as string;
  expect(message).toMatch(/Redis Cluster/);
  for (const key of events) expect(message).toContain(key);
  expect(message).toMatch(/nothing was changed/);
}

describe('changes of several events on Redis Cluster', () => {
  it('refuses an event group over events of different slots, changing nothing in any of them', async () => {
    const [a, b] = [await createEvent(ctx.api, chartKey), await createEvent(ctx.api, chartKey)];
    const response = await ctx.api.post('/events/groups/actions/change-object-status', { events: [a, b], status: 'booked', objects: ['A-1', 'A-2'] });
    expectRefused(response, [a, b]);
    for (const key of [a, b]) {
      expect(await statuses(ctx.api, key, ['A-1', 'A-2'])).toEqual({ 'A-1': 'free', 'A-2': 'free' });
      // Not even a used-objects count or a history entry: the script never ran.
      expect(await redisKeysOf(ctx.server, await storedEvent(ctx.server, ctx.company.workspace.id, key))).toEqual([]);
    }
  });

  it('refuses a batch over events of different slots, changing nothing', async () => {
    const [a, b] = [await createEvent(ctx.api, chartKey), await createEvent(ctx.api, chartKey)];
    const response = await ctx.api.post('/events/actions/change-object-status', {
      statusChanges: [
        { event: a, status: 'booked', objects: ['B-1'] },
        { event: b, status: 'booked', objects: ['B-2'] },
      ],
    });
    expectRefused(response, [a, b]);
    expect(await statuses(ctx.api, a, ['B-1'])).toEqual({ 'B-1': 'free' });
    expect(await statuses(ctx.api, b, ['B-2'])).toEqual({ 'B-2': 'free' });
  });

  it('applies a group over the events of one season (one hash tag) all or nothing', async () => {
    const season = await createSeason(ctx.api, chartKey, { numberOfEvents: 2 });
    const [first, second] = eventKeysOf(season);
    const group = await ctx.api.post('/events/groups/actions/change-object-status', { events: [first, second], status: 'lounge', objects: ['C-1'] });
    expect(group.status, group.text).toBe(204);
    expect(await statuses(ctx.api, first!, ['C-1'])).toEqual({ 'C-1': 'lounge' });
    expect(await statuses(ctx.api, second!, ['C-1'])).toEqual({ 'C-1': 'lounge' });
    // One unit refusing (C-2 already in a status on the second event) leaves the first unchanged.
    expect((await ctx.api.post('/events/actions/change-object-status', { statusChanges: [{ event: second, status: 'lounge', objects: ['C-2'] }] })).status).toBe(204);
    const refused = await ctx.api.post('/events/groups/actions/change-object-status', {
      events: [first, second],
      type: 'CHANGE_STATUS_TO',
      status: 'booked',
      objects: ['C-2'],
      rejectedPreviousStatuses: ['lounge'],
    });
    expectError(refused, 400, 'ILLEGAL_STATUS_CHANGE');
    expect(await statuses(ctx.api, first!, ['C-2'])).toEqual({ 'C-2': 'free' });
    expect(await statuses(ctx.api, second!, ['C-2'])).toEqual({ 'C-2': 'lounge' });
  });
});
