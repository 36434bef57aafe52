import { beforeAll, describe, expect, it } from 'vitest';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { retrieveEvent, saleConfigOf, storedEvent, type EventRecord } from '../support/eventAdmin.js';
import { createEvent, createEventRecord, eventPath } from '../support/events.js';
import { expectError, useServerWithCompany } from '../support/harness.js';
import { FIELD_SEPARATOR } from '../../src/domain/objectStates.js';

// The channels of an event (docs/seatsio-behaviour.md,
// "Channels"): on create, replace, add, update, delete, assign and unassign objects and
// GA places; the Redis fields the sales flow checks follow every change; refused requests
// change nothing.

type Channel = EventRecord['channels'][number];

describe('event channels', () => {
  const ctx = useServerWithCompany();
  let chartKey: string;

  beforeAll(async () => {
    chartKey = (await uploadDrawing(ctx.api, rowsWithoutSections)).key;
  });

  const channelsOf = async (key: string) => (await retrieveEvent(ctx.api, key)).channels;
  const redisOf = (key: string) => saleConfigOf(ctx.server, ctx.company.workspace.id, key);
  /** Channels without their generated ids, for comparing. */
  const withoutIds = (channels: Channel[]) => channels.map(({ id: _id, ...rest }) => rest);
  const post = async (path: string, body: unknown) => {
    const response = await ctx.api.post(path, body);
    expect(response.status, response.text).toBe(204);
    expect(response.text).toBe('');
  };

  it('creates an event with channels: generated string ids, color null and index absent when not given, Redis fields per object', async () => {
    const created = await createEventRecord(ctx.api, chartKey, {
      channels: [
        { key: 'ch1', name: 'Channel 1', color: 'blue', index: 1, objects: ['A-1', 'A-2'], areaPlaces: { GA1: 5 } },
        { key: 'ch2', name: 'Channel 2', color: '#FF0000', index: 2, objects: ['A-3'], areaPlaces: { GA1: 3 } },
        { key: 'ch3', name: 'Channel 3' },
      ],
    });
    expect(created.channels).toEqual([
      { id: expect.any(String), key: 'ch1', name: 'Channel 1', color: 'blue', index: 1, objects: ['A-1', 'A-2'], areaPlaces: { GA1: 5 } },
      { id: expect.any(String), key: 'ch2', name: 'Channel 2', color: '#FF0000', index: 2, objects: ['A-3'], areaPlaces: { GA1: 3 } },
      { id: expect.any(String), key: 'ch3', name: 'Channel 3', color: null, objects: [], areaPlaces: {} },
    ]);
    expect(new Set(created.channels.map((c) => c.id)).size).toBe(3);
    expect(created.channels.every((c) => c.id !== '')).toBe(true);
    expect(await channelsOf(created.key)).toEqual(created.channels);
    // Area places are one field per area: channel and places, repeated (unit separator between).
    expect(await redisOf(created.key)).toEqual({ 'c:A-1': 'ch1', 'c:A-2': 'ch1', 'c:A-3': 'ch2', 'a:GA1': ['ch1', 5, 'ch2', 3].join(FIELD_SEPARATOR) });
  });

  it('replaces all channels: 204, same key keeps its id, objects of dropped channels leave Redis', async () => {
    const key = await createEvent(ctx.api, chartKey, { channels: [{ key: 'keep', name: 'Keep', objects: ['A-1'] }, { key: 'drop', name: 'Drop', objects: ['B-1'] }] });
    const [kept] = await channelsOf(key);
    await post(eventPath(key, '/channels/replace'), {
      channels: [
        { key: 'keep', name: 'Kept', color: 'green', index: 5, objects: ['A-5'] },
        { key: 'new', name: 'New', objects: ['C-1', 'GA2'] },
      ],
    });
    const channels = await channelsOf(key);
    expect(withoutIds(channels)).toEqual([
      { key: 'keep', name: 'Kept', color: 'green', index: 5, objects: ['A-5'], areaPlaces: {} },
      { key: 'new', name: 'New', color: null, objects: ['C-1', 'GA2'], areaPlaces: {} },
    ]);
    expect(channels[0]!.id).toBe(kept!.id);
    expect(await redisOf(key)).toEqual({ 'c:A-5': 'keep', 'c:C-1': 'new', 'c:GA2': 'new' });

    await post(eventPath(key, '/channels/replace'), { channels: [] });
    expect(await channelsOf(key)).toEqual([]);
    expect(await redisOf(key)).toEqual({});
  });

  it('adds one channel or several; each keeps the order it was added in', async () => {
    const key = await createEvent(ctx.api, chartKey);
    await post(eventPath(key, '/channels'), { key: 'one', name: 'One', color: '#FFFF98', index: 1, objects: ['A-1', 'A-2'] });
    await post(eventPath(key, '/channels'), [
      { key: 'two', name: 'Two', objects: ['A-3'] },
      { key: 'three', name: 'Three', areaPlaces: { GA1: 10 } },
    ]);
    expect(withoutIds(await channelsOf(key))).toEqual([
      { key: 'one', name: 'One', color: '#FFFF98', index: 1, objects: ['A-1', 'A-2'], areaPlaces: {} },
      { key: 'two', name: 'Two', color: null, objects: ['A-3'], areaPlaces: {} },
      { key: 'three', name: 'Three', color: null, objects: [], areaPlaces: { GA1: 10 } },
    ]);
    expect(await redisOf(key)).toEqual({ 'c:A-1': 'one', 'c:A-2': 'one', 'c:A-3': 'two', 'a:GA1': ['three', 10].join(FIELD_SEPARATOR) });
  });

  it('updates name, colour, index, objects and area places of one channel, each alone', async () => {
    const key = await createEvent(ctx.api, chartKey, { channels: [{ key: 'c', name: 'C', color: 'red', index: 1, objects: ['A-1', 'A-2'] }, { key: 'd', name: 'D' }] });
    const id = (await channelsOf(key))[0]!.id;
    const update = async (body: Record<string, unknown>) => {
      await post(eventPath(key, '/channels/c'), body);
      return (await channelsOf(key))[0]!;
    };
    expect(await update({ name: 'New name' })).toEqual({ id, key: 'c', name: 'New name', color: 'red', index: 1, objects: ['A-1', 'A-2'], areaPlaces: {} });
    expect((await update({ color: 'hsl(10, 50%, 50%)' })).color).toBe('hsl(10, 50%, 50%)');
    expect((await update({ index: 7 })).index).toBe(7);
    expect((await update({ objects: ['B-1', 'B-2'] })).objects).toEqual(['B-1', 'B-2']);
    expect(await redisOf(key)).toEqual({ 'c:B-1': 'c', 'c:B-2': 'c' });
    expect((await update({ areaPlaces: { GA2: 4 } })).areaPlaces).toEqual({ GA2: 4 });
    expect(await update({})).toEqual({ id, key: 'c', name: 'New name', color: 'hsl(10, 50%, 50%)', index: 7, objects: ['B-1', 'B-2'], areaPlaces: { GA2: 4 } });
    // Cleared: color null, index absent (as for a channel created without one).
    expect((await update({ color: null, index: null, objects: null, areaPlaces: null }))).toEqual({
      id, key: 'c', name: 'New name', color: null, objects: [], areaPlaces: {},
    });
    expect(await redisOf(key)).toEqual({});
    expect((await channelsOf(key))[1]).toMatchObject({ key: 'd', name: 'D' });
  });

  it('deletes a channel; its objects leave Redis', async () => {
    const key = await createEvent(ctx.api, chartKey, { channels: [{ key: 'a', name: 'A', objects: ['A-1'] }, { key: 'b', name: 'B', objects: ['B-1'] }] });
    const response = await ctx.api.delete(eventPath(key, '/channels/a'));
    expect(response.status, response.text).toBe(204);
    expect(withoutIds(await channelsOf(key))).toEqual([{ key: 'b', name: 'B', color: null, objects: ['B-1'], areaPlaces: {} }]);
    expect(await redisOf(key)).toEqual({ 'c:B-1': 'b' });
    expectError(await ctx.api.delete(eventPath(key, '/channels/a')), 404, 'CHANNEL_NOT_FOUND');
  });

  it('assigns objects and places to a channel, moving objects out of other channels, and unassigns them', async () => {
    const key = await createEvent(ctx.api, chartKey, {
      channels: [
        { key: 'one', name: 'One', objects: ['A-1', 'A-2'], areaPlaces: { GA1: 5 } },
        { key: 'two', name: 'Two', objects: ['A-3', 'A-4'] },
      ],
    });
    await post(eventPath(key, '/channels/one/objects'), { objects: ['A-3', 'A-4', 'A-1'], areaPlaces: { GA1: 2, GA2: 7 } });
    expect(withoutIds(await channelsOf(key))).toEqual([
      { key: 'one', name: 'One', color: null, objects: ['A-1', 'A-2', 'A-3', 'A-4'], areaPlaces: { GA1: 7, GA2: 7 } },
      { key: 'two', name: 'Two', color: null, objects: [], areaPlaces: {} },
    ]);
    expect(await redisOf(key)).toEqual({
      'c:A-1': 'one',
      'c:A-2': 'one',
      'c:A-3': 'one',
      'c:A-4': 'one',
      'a:GA1': ['one', 7].join(FIELD_SEPARATOR),
      'a:GA2': ['one', 7].join(FIELD_SEPARATOR),
    });

    const removed = await ctx.api.delete(eventPath(key, '/channels/one/objects'), { objects: ['A-3', 'A-4', 'B-8'], areaPlaces: { GA1: 2, GA2: 100 } });
    expect(removed.status, removed.text).toBe(204);
    expect((await channelsOf(key))[0]).toMatchObject({ objects: ['A-1', 'A-2'], areaPlaces: { GA1: 5 } });
    expect(await redisOf(key)).toEqual({ 'c:A-1': 'one', 'c:A-2': 'one', 'a:GA1': ['one', 5].join(FIELD_SEPARATOR) });
  });

  it('refuses bad channels with 400 (or 404 for an unknown channel) and changes nothing', async () => {
    const key = await createEvent(ctx.api, chartKey, {
      channels: [
        { key: 'one', name: 'One', objects: ['A-1'], areaPlaces: { GA1: 60 } },
        { key: 'two', name: 'Two', objects: ['GA2'] },
      ],
    });
    const before = await retrieveEvent(ctx.api, key);
    const redisBefore = await redisOf(key);
    const fiftyOne = Array.from({ length: 51 }, (_, i) => ({ key: `k${i}`, name: `n${i}` }));
    const cases: [string, string, unknown, number, string][] = [
      ['POST', '/channels', { key: 'one', name: 'Another' }, 400, 'DUPLICATE_CHANNEL_KEY'],
      ['POST', '/channels', { key: 'three', name: 'One' }, 400, 'DUPLICATE_CHANNEL_NAME'],
      ['POST', '/channels', [{ key: 'x', name: 'X' }, { key: 'x', name: 'Y' }], 400, 'DUPLICATE_CHANNEL_KEY'],
      ['POST', '/channels', { key: 'three', name: 'Three', objects: ['A-1'] }, 400, 'OBJECT_ALREADY_IN_CHANNEL'],
      ['POST', '/channels', { key: 'three', name: 'Three', objects: ['Z-99'] }, 400, 'OBJECT_NOT_FOUND'],
      ['POST', '/channels', { key: 'three', name: 'Three', areaPlaces: { 'A-2': 1 } }, 400, 'GENERAL_ERROR'],
      ['POST', '/channels', { key: 'three', name: 'Three', areaPlaces: { GA1: 41 } }, 400, 'GENERAL_ERROR'],
      ['POST', '/channels', { key: 'three', name: 'Three', areaPlaces: { GA1: 0 } }, 400, 'GENERAL_ERROR'],
      ['POST', '/channels', { key: 'three', name: 'Three', areaPlaces: { GA1: 1.5 } }, 400, 'GENERAL_ERROR'],
      ['POST', '/channels', { key: 'three', name: 'Three', areaPlaces: { GA2: 1 } }, 400, 'GENERAL_ERROR'],
      ['POST', '/channels', { key: 'three', name: 'Three', objects: ['GA1'] }, 400, 'GENERAL_ERROR'],
      ['POST', '/channels', { key: 'three', name: 'Three', color: 'no colour' }, 400, 'GENERAL_ERROR'],
      ['POST', '/channels', { key: 'NO_CHANNEL', name: 'Nothing' }, 400, 'GENERAL_ERROR'],
      ['POST', '/channels', { key: 'three' }, 400, 'GENERAL_ERROR'],
      ['POST', '/channels', { key: '', name: 'Empty' }, 400, 'GENERAL_ERROR'],
      ['POST', '/channels', { key: 'three', name: 'Three', objects: Array.from({ length: 10_001 }, () => 'A-1') }, 400, 'GENERAL_ERROR'],
      ['POST', '/channels', fiftyOne, 400, 'GENERAL_ERROR'],
      ['POST', '/channels', fiftyOne.slice(0, 49), 400, 'GENERAL_ERROR'],
      ['POST', '/channels/replace', {}, 400, 'GENERAL_ERROR'],
      ['POST', '/channels/replace', { channels: [{ key: 'a', name: 'A', objects: ['A-1'] }, { key: 'b', name: 'B', objects: ['A-1'] }] }, 400, 'OBJECT_ALREADY_IN_CHANNEL'],
      ['POST', '/channels/replace', { channels: [{ key: 'a', name: 'A', objects: ['GA1'], areaPlaces: { GA1: 2 } }] }, 400, 'GENERAL_ERROR'],
      ['POST', '/channels/replace', { channels: [{ key: 'a', name: 'Same' }, { key: 'b', name: 'Same' }] }, 400, 'DUPLICATE_CHANNEL_NAME'],
      ['POST', '/channels/one', { name: 'Two' }, 400, 'DUPLICATE_CHANNEL_NAME'],
      ['POST', '/channels/one', { objects: ['GA2'] }, 400, 'OBJECT_ALREADY_IN_CHANNEL'],
      ['POST', '/channels/one', { objects: ['nothing'] }, 400, 'OBJECT_NOT_FOUND'],
      ['POST', '/channels/one', { color: 5 }, 400, 'GENERAL_ERROR'],
      ['POST', '/channels/missing', { name: 'Missing' }, 404, 'CHANNEL_NOT_FOUND'],
      ['POST', '/channels/one/objects', { objects: ['nothing'] }, 400, 'OBJECT_NOT_FOUND'],
      ['POST', '/channels/one/objects', { areaPlaces: { GA1: 41 } }, 400, 'GENERAL_ERROR'],
      ['POST', '/channels/one/objects', { objects: ['GA1'] }, 400, 'GENERAL_ERROR'],
      ['POST', '/channels/missing/objects', { objects: ['A-5'] }, 404, 'CHANNEL_NOT_FOUND'],
      ['DELETE', '/channels/one/objects', { objects: ['nothing'] }, 400, 'OBJECT_NOT_FOUND'],
      ['DELETE', '/channels/one/objects', { areaPlaces: { 'A-1': 1 } }, 400, 'GENERAL_ERROR'],
      ['DELETE', '/channels/missing/objects', { objects: ['A-1'] }, 404, 'CHANNEL_NOT_FOUND'],
      ['DELETE', '/channels/missing', undefined, 404, 'CHANNEL_NOT_FOUND'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const response = method === 'POST' ? await ctx.api.post(eventPath(key, path), body) : await ctx.api.delete(eventPath(key, path), body);
      expectError(response, status, code);
    }
    expect(await retrieveEvent(ctx.api, key)).toEqual(before);
    expect(await redisOf(key)).toEqual(redisBefore);

    // The same checks apply on create: nothing is created.
    expectError(await ctx.api.post('/events', { chartKey, eventKey: 'bad-channels', channels: [{ key: 'a', name: 'A', objects: ['nope'] }] }), 400, 'OBJECT_NOT_FOUND');
    expectError(await ctx.api.get('/events/bad-channels'), 404, 'EVENT_NOT_FOUND');
  });

  it('answers 404 EVENT_NOT_FOUND on every channel route of an unknown event', async () => {
    expectError(await ctx.api.post('/events/nope/channels/replace', { channels: [] }), 404, 'EVENT_NOT_FOUND');
    expectError(await ctx.api.post('/events/nope/channels', { key: 'a', name: 'A' }), 404, 'EVENT_NOT_FOUND');
    expectError(await ctx.api.post('/events/nope/channels/a', { name: 'A' }), 404, 'EVENT_NOT_FOUND');
    expectError(await ctx.api.delete('/events/nope/channels/a'), 404, 'EVENT_NOT_FOUND');
    expectError(await ctx.api.post('/events/nope/channels/a/objects', { objects: ['A-1'] }), 404, 'EVENT_NOT_FOUND');
    expectError(await ctx.api.delete('/events/nope/channels/a/objects', { objects: ['A-1'] }), 404, 'EVENT_NOT_FOUND');
  });

  it('keeps every one of 10 concurrent channel additions (conditional writes retry)', async () => {
    const key = await createEvent(ctx.api, chartKey);
    const label = (i: number) => (i < 8 ? `A-${i + 1}` : `B-${i - 7}`);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => ctx.api.post(eventPath(key, '/channels'), { key: `c${i}`, name: `Channel ${i}`, objects: [label(i)] })),
    );
    for (const response of responses) expect(response.status, response.text).toBe(204);
    const channels = await channelsOf(key);
    expect(channels.map((c) => c.key).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `c${i}`).sort());
    const redis = await redisOf(key);
    expect(Object.keys(redis)).toHaveLength(10);
    for (const channel of channels) expect(redis[`c:${channel.objects[0]}`]).toBe(channel.key);
    // One write per addition on top of the insert: none overwrote another.
    expect((await storedEvent(ctx.server, ctx.company.workspace.id, key)).version).toBe(11);
  });
});
