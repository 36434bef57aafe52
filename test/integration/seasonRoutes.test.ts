import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { createEvent, eventPath } from '../support/events.js';
import { expectError, useServerWithCompany } from '../support/harness.js';
import { createSeason, eventKeysOf } from '../support/seasons.js';

// The season routes (docs/seasons.md): create a season with events, add events, partial
// seasons, and retrieve, update, list and delete through the event routes.

const ctx = useServerWithCompany('shared');
let chartKey: string;

beforeAll(async () => {
  chartKey = (await uploadDrawing(ctx.api, rowsWithoutSections)).key;
});

describe('creating seasons', () => {
  it('creates a season with events named by key, flagged and listed in creation order', async () => {
    const key = randomUUID();
    const season = await createSeason(ctx.api, chartKey, { key, name: 'Season 2027', eventKeys: [`${key}-1`, `${key}-2`] });
    expect(season).toMatchObject({
      key,
      name: 'Season 2027',
      chartKey,
      isSeason: true,
      isTopLevelSeason: true,
      isPartialSeason: false,
      isEventInSeason: false,
      partialSeasonKeys: [],
      forSalePropagated: true,
      isInThePast: false,
    });
    expect(season.events.map((e: { key: string }) => e.key)).toEqual([`${key}-1`, `${key}-2`]);
    expect(season.events[0]).toMatchObject({
      isSeason: false,
      isEventInSeason: true,
      topLevelSeasonKey: key,
      partialSeasonKeysForEvent: [],
    });
    const event = await ctx.api.get(eventPath(`${key}-2`));
    expect(event.body).toMatchObject({ isEventInSeason: true, topLevelSeasonKey: key, partialSeasonKeysForEvent: [] });
    expect(event.body.events).toBeUndefined();
  });

  it('creates numberOfEvents events with new keys, and a season key of its own when none is given', async () => {
    const season = await createSeason(ctx.api, chartKey, { numberOfEvents: 3, forSalePropagated: false });
    expect(season.key).toMatch(/\S/);
    expect(season.forSalePropagated).toBe(false);
    expect(season.events).toHaveLength(3);
    expect(new Set(season.events.map((e: { key: string }) => e.key)).size).toBe(3);
  });

  it('takes the season settings: table booking config, categories, object categories, channels, for-sale config', async () => {
    const season = await createSeason(ctx.api, chartKey, {
      numberOfEvents: 1,
      tableBookingConfig: { mode: 'ALL_BY_SEAT' },
      categories: [{ key: 'vip', label: 'VIP', color: '#ff0000' }],
      objectCategories: { 'A-1': 'vip' },
      channels: [{ key: 'ch1', name: 'Channel 1', color: '#00ff00', index: 1, objects: ['A-2'] }],
      forSaleConfig: { forSale: false, objects: ['A-3'] },
    });
    expect(season.tableBookingConfig).toEqual({ mode: 'ALL_BY_SEAT' });
    expect(season.objectCategories).toEqual({ 'A-1': 'vip' });
    expect(season.channels).toEqual([expect.objectContaining({ key: 'ch1', objects: ['A-2'] })]);
    expect(season.forSaleConfig).toMatchObject({ forSale: false, objects: ['A-3'] });
    // Its events take the table booking and categories, and show the season's channels.
    expect(season.events[0].tableBookingConfig).toEqual({ mode: 'ALL_BY_SEAT' });
    expect(season.events[0].objectCategories).toEqual({ 'A-1': 'vip' });
    expect(season.events[0].channels).toEqual([expect.objectContaining({ key: 'ch1', objects: ['A-2'] })]);
  });

  it('refuses an unknown chart (404), both eventKeys and numberOfEvents, and a taken event key, creating nothing', async () => {
    expectError(await ctx.api.post('/seasons', { chartKey: 'nope' }), 404, 'CHART_NOT_FOUND');
    const key = randomUUID();
    expectError(await ctx.api.post('/seasons', { chartKey, key, eventKeys: ['x'], numberOfEvents: 1 }), 400, 'GENERAL_ERROR');
    const taken = await createEvent(ctx.api, chartKey);
    expectError(await ctx.api.post('/seasons', { chartKey, key, eventKeys: [taken] }), 400, 'EVENT_KEY_ALREADY_EXISTS');
    expectError(await ctx.api.get(eventPath(key)), 404, 'EVENT_NOT_FOUND');
  });
});

describe('adding events', () => {
  it('creates events in the season and answers them newest first', async () => {
    const season = await createSeason(ctx.api, chartKey, {});
    const response = await ctx.api.post(`/seasons/${season.key}/actions/create-events`, { eventKeys: ['event1', 'event2'].map((k) => `${season.key}-${k}`) });
    expect(response.status, response.text).toBe(200);
    expect(response.body.events.map((e: { key: string }) => e.key)).toEqual([`${season.key}-event2`, `${season.key}-event1`]);
    const more = await ctx.api.post(`/seasons/${season.key}/actions/create-events`, { numberOfEvents: 2 });
    expect(more.body.events).toHaveLength(2);
    const retrieved = await ctx.api.get(eventPath(season.key));
    expect(retrieved.body.events).toHaveLength(4);
  });

  it('answers 404 SEASON_NOT_FOUND for an unknown season or a plain event', async () => {
    expectError(await ctx.api.post(`/seasons/nope/actions/create-events`, { numberOfEvents: 1 }), 404, 'SEASON_NOT_FOUND');
    const event = await createEvent(ctx.api, chartKey);
    expectError(await ctx.api.post(`/seasons/${event}/actions/create-events`, { numberOfEvents: 1 }), 404, 'SEASON_NOT_FOUND');
  });
});

describe('partial seasons', () => {
  it('creates a partial season, adds events to it and removes one', async () => {
    const season = await createSeason(ctx.api, chartKey, { numberOfEvents: 3 });
    const [e1, e2, e3] = eventKeysOf(season) as [string, string, string];
    const created = await ctx.api.post(`/seasons/${season.key}/partial-seasons`, { key: `${season.key}-p`, name: 'Half', eventKeys: [e1] });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({
      key: `${season.key}-p`,
      name: 'Half',
      isSeason: true,
      isPartialSeason: true,
      isTopLevelSeason: false,
      topLevelSeasonKey: season.key,
    });
    expect(created.body.partialSeasonKeys).toBeUndefined();
    expect(created.body.events.map((e: { key: string }) => e.key)).toEqual([e1]);

    const added = await ctx.api.post(`/seasons/${season.key}/partial-seasons/${season.key}-p/actions/add-events`, { eventKeys: [e2, e3] });
    expect(added.body.events.map((e: { key: string }) => e.key)).toEqual([e1, e2, e3]);
    expect((await ctx.api.get(eventPath(e2))).body.partialSeasonKeysForEvent).toEqual([`${season.key}-p`]);
    expect((await ctx.api.get(eventPath(season.key))).body.partialSeasonKeys).toEqual([`${season.key}-p`]);

    const removed = await ctx.api.delete(`/seasons/${season.key}/partial-seasons/${season.key}-p/events/${e2}`);
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.events.map((e: { key: string }) => e.key)).toEqual([e1, e3]);
    expect((await ctx.api.get(eventPath(e2))).body.partialSeasonKeysForEvent).toEqual([]);
  });

  it('refuses events outside the season (400) and unknown partial seasons (404), changing nothing', async () => {
    const season = await createSeason(ctx.api, chartKey, { numberOfEvents: 1 });
    const other = await createEvent(ctx.api, chartKey);
    expectError(await ctx.api.post(`/seasons/${season.key}/partial-seasons`, { key: `${season.key}-p`, eventKeys: [other] }), 400, 'EVENT_NOT_IN_SEASON');
    expectError(await ctx.api.get(eventPath(`${season.key}-p`)), 404, 'EVENT_NOT_FOUND');
    expectError(await ctx.api.post(`/seasons/${season.key}/partial-seasons/nope/actions/add-events`, { eventKeys: [season.events[0].key] }), 404, 'PARTIAL_SEASON_NOT_FOUND');
    expectError(await ctx.api.post(`/seasons/nope/partial-seasons`, {}), 404, 'SEASON_NOT_FOUND');
    await ctx.api.post(`/seasons/${season.key}/partial-seasons`, { key: `${season.key}-p` });
    expectError(await ctx.api.post(`/seasons/${season.key}/partial-seasons/${season.key}-p/actions/add-events`, { eventKeys: [other] }), 400, 'EVENT_NOT_IN_SEASON');
    expect((await ctx.api.get(eventPath(`${season.key}-p`))).body.events).toEqual([]);
  });
});

describe('seasons through the event routes', () => {
  it('lists seasons among the events, without their events', async () => {
    const season = await createSeason(ctx.api, chartKey, { numberOfEvents: 1 });
    const page = await ctx.api.get('/events?limit=5');
    const item = page.body.items.find((i: { key: string }) => i.key === season.key);
    expect(item).toMatchObject({ isSeason: true, isTopLevelSeason: true });
    expect(item.events).toBeUndefined();
  });

  it('updates a season: new key, name, forSalePropagated, table booking config carried to its events', async () => {
    const season = await createSeason(ctx.api, chartKey, { numberOfEvents: 1 });
    const newKey = `${season.key}-renamed`;
    const response = await ctx.api.post(eventPath(season.key), {
      eventKey: newKey,
      name: 'Renamed',
      forSalePropagated: false,
      tableBookingConfig: { mode: 'ALL_BY_TABLE' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ key: newKey, name: 'Renamed', forSalePropagated: false, tableBookingConfig: { mode: 'ALL_BY_TABLE' } });
    const event = await ctx.api.get(eventPath(season.events[0].key));
    expect(event.body).toMatchObject({ topLevelSeasonKey: newKey, tableBookingConfig: { mode: 'ALL_BY_TABLE' } });
    expectError(await ctx.api.post(eventPath(season.events[0].key), { forSalePropagated: true }), 400, 'NOT_A_TOP_LEVEL_SEASON');
  });

  it('marks an event in the past once: unsetting it or changing the event afterwards is refused', async () => {
    const season = await createSeason(ctx.api, chartKey, { numberOfEvents: 1 });
    const event = season.events[0].key;
    const marked = await ctx.api.post(eventPath(event), { isInThePast: true });
    expect(marked.body.isInThePast).toBe(true);
    expectError(await ctx.api.post(eventPath(event), { isInThePast: false }), 400, 'EVENT_IN_THE_PAST');
    expectError(await ctx.api.post(eventPath(event), { name: 'x' }), 400, 'EVENT_IN_THE_PAST');
    expect((await ctx.api.get(eventPath(event))).body.isInThePast).toBe(true);
    expectError(await ctx.api.post(eventPath(season.key), { isInThePast: true }), 400, 'SEASON_CANNOT_BE_IN_THE_PAST');
  });

  it('deletes a season with its partial seasons and events; deleting an event takes it out of its partial seasons', async () => {
    const season = await createSeason(ctx.api, chartKey, { numberOfEvents: 2 });
    const [e1, e2] = eventKeysOf(season) as [string, string];
    await ctx.api.post(`/seasons/${season.key}/partial-seasons`, { key: `${season.key}-p`, eventKeys: [e1, e2] });
    expect((await ctx.api.delete(eventPath(e1))).status).toBe(204);
    expect((await ctx.api.get(eventPath(`${season.key}-p`))).body.events.map((e: { key: string }) => e.key)).toEqual([e2]);
    expect((await ctx.api.delete(eventPath(season.key))).status).toBe(204);
    for (const key of [season.key, `${season.key}-p`, e2]) expectError(await ctx.api.get(eventPath(key)), 404, 'EVENT_NOT_FOUND');
  });
});
