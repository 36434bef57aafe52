import { describe, expect, it } from 'vitest';
import { generatedDrawing, rowLabel, rowsWithoutSections } from '../fixtures/drawings.js';
import { done, eventPath, holdToken, newEvent, type TestEvent } from '../support/events.js';
import { expectError, type Api, type CompanyClients, useServerWithCompany } from '../support/harness.js';
import { secondWorkspace, thisMonth, usageCounted } from '../support/usage.js';
import { historyKey, usedBucketKey, usedObjectsKey } from '../../src/inventory/eventKeys.js';
import { FIELD_SEPARATOR } from '../../src/domain/objectStates.js';
import { usedBucketsFor } from '../../src/domain/usedBuckets.js';

// Used objects (docs/seatsio-behaviour.md, "Usage"): the distinct objects
// of each event passed to book, hold or change-object-status, per month; usage reports for
// the company admin key. Each test uses a company of its own, so its counts are its own.

const ctx = useServerWithCompany();

interface MonthReport {
  workspace: { id: number; name: string };
  usageByEvent: { event: { id: number; key: string | null }; numUsedObjects: number }[];
}

/** A usage report, once the drain has counted every change made before (usage shows up one drain later). */
async function get<T = any>(admin: Api, path: string): Promise<T> {
  await usageCounted(ctx.server);
  const response = await admin.get<T>(path);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

const monthReport = (admin: Api, month = thisMonth()) => get<MonthReport[]>(admin, `/reports/usage/month/${month}`);

/** numUsedObjects of one event this month, 0 when the event is not in the report. */
async function usedCount(admin: Api, event: TestEvent): Promise<number> {
  const entries = (await monthReport(admin)).flatMap((w) => w.usageByEvent).filter((e) => e.event.id === event.id);
  expect(entries.length).toBeLessThanOrEqual(1);
  return entries[0]?.numUsedObjects ?? 0;
}

async function usedLabels(admin: Api, event: TestEvent, month = thisMonth()): Promise<string[]> {
  const body = await get<{ object: string }[]>(admin, `/reports/usage/month/${month}/event/${event.id}`);
  return body.map((entry) => entry.object);
}

async function company(): Promise<CompanyClients & { event: TestEvent }> {
  const clients = await ctx.freshCompany();
  return { ...clients, event: await newEvent(clients.api, rowsWithoutSections) };
}

describe('used objects', () => {
  it('book 2, hold 1, custom status on 1 → 4 used objects for the event this month', async () => {
    const { api, admin, event } = await company();
    await done(api, event.key, 'book', { objects: ['A-1', 'A-2'] });
    await done(api, event.key, 'hold', { objects: ['A-3'], holdToken: await holdToken(api) });
    await done(api, event.key, 'change-object-status', { objects: ['A-4'], status: 'sold-at-door' });
    expect(await usedCount(admin, event)).toBe(4);
    expect(await usedLabels(admin, event)).toEqual(['A-1', 'A-2', 'A-3', 'A-4']);
  });

  it('an object used again (booked after a release) counts once; release counts nothing', async () => {
    const { api, admin, event } = await company();
    await done(api, event.key, 'book', { objects: ['B-1'] });
    await done(api, event.key, 'release', { objects: ['B-1'] });
    await done(api, event.key, 'book', { objects: ['B-1'] });
    const token = await holdToken(api);
    await done(api, event.key, 'release', { objects: ['B-1'] });
    await done(api, event.key, 'hold', { objects: ['B-1'], holdToken: token });
    await done(api, event.key, 'book', { objects: ['B-1'], holdToken: token });
    expect(await usedCount(admin, event)).toBe(1);
    expect(await usedLabels(admin, event)).toEqual(['B-1']);
  });

  it('a refused release (nothing to release) counts nothing', async () => {
    const { api, admin, event } = await company();
    expectError(await api.post(eventPath(event.key, '/actions/release'), { objects: ['C-1', 'C-2'] }), 400, 'OBJECT_NOT_RELEASABLE');
    expect(await monthReport(admin)).toEqual([]);
    expect(await usedLabels(admin, event)).toEqual([]);
  });

  it('the per-event route names GA areas and objects given in the object format by label', async () => {
    const { api, admin, event } = await company();
    await done(api, event.key, 'book', { objects: [{ objectId: 'D-1', ticketType: 'adult' }, { objectId: 'GA1', quantity: 3 }] });
    expect(await usedLabels(admin, event)).toEqual(['D-1', 'GA1']);
  });

  it('one group call on two events counts for each event', async () => {
    const { api, admin, event } = await company();
    const second = await newEvent(api, rowsWithoutSections);
    const response = await api.post('/events/groups/actions/change-object-status', {
      events: [event.key, second.key],
      type: 'CHANGE_STATUS_TO',
      status: 'booked',
      objects: [{ objectId: 'A-1' }, { objectId: 'A-2' }],
    });
    expect(response.status, response.text).toBe(204);
    expect(await usedCount(admin, event)).toBe(2);
    expect(await usedCount(admin, second)).toBe(2);
  });
});

describe('used objects at scale', () => {
  // 100 rows of 100 seats: enough labels to fill every bucket of the month's hash several
  // times, and more values than one Lua unpack() takes (so commands are cut in chunks).
  const big = generatedDrawing({ sections: 0, rowsPerSection: 100, seatsPerRow: 100 });
  const labels = Array.from({ length: 100 }, (_, r) => Array.from({ length: 100 }, (_, s) => `${rowLabel(r)}-${s + 1}`)).flat();

  it('10,000 objects in one batch, then again: each counted and listed once', async () => {
    const { api, admin } = await ctx.freshCompany();
    const event = await newEvent(api, big);
    const tenths = Array.from({ length: 10 }, (_, i) => labels.slice(i * 1000, i * 1000 + 1000));
    const batch = await api.post('/events/actions/change-object-status', {
      statusChanges: tenths.map((objects) => ({ event: event.key, status: 'booked', objects })),
    });
    expect(batch.status, batch.text).toBe(204);
    expect(await usedCount(admin, event)).toBe(10_000);
    // Released and held again: nothing new.
    await done(api, event.key, 'release', { objects: tenths[3]! });
    await done(api, event.key, 'hold', { objects: tenths[3]!, holdToken: await holdToken(api) });
    expect(await usedCount(admin, event)).toBe(10_000);
    expect(await usedLabels(admin, event)).toEqual([...labels].sort());
    // Every bucket stays small enough for Redis's compact listpack encoding.
    const { redis } = ctx.server.app.parts;
    const month = thisMonth();
    const ref = { _id: event.id, tag: String(event.id) };
    const buckets = Number(await redis.hget(usedObjectsKey(ref, month), 'b'));
    expect(buckets).toBe(usedBucketsFor(10_000));
    const encodings = new Set<string>();
    for (let bucket = 0; bucket < buckets; bucket++) {
      // ioredis does not add its key prefix to OBJECT's key: the full key is given.
      const encoding = await redis.object('ENCODING', `${redis.options.keyPrefix ?? ''}${usedBucketKey(ref, month, bucket)}`);
      if (encoding !== null) encodings.add(String(encoding));
    }
    expect([...encodings]).toEqual(['listpack']);
  });
});

describe('used objects count only when the request succeeds', () => {
  it('a refused all-or-nothing book adds nothing', async () => {
    const { api, admin, event } = await company();
    await done(api, event.key, 'book', { objects: ['A-1'] });
    const refused = await api.post(eventPath(event.key, '/actions/book'), { objects: ['A-5', 'A-6', 'A-1'] });
    expectError(refused, 400, 'OBJECT_NOT_FREE');
    expect(await usedCount(admin, event)).toBe(1);
    expect(await usedLabels(admin, event)).toEqual(['A-1']);
  });

  it('a refused first request of an event leaves the event out of the report', async () => {
    const { api, admin, event } = await company();
    const refused = await api.post(eventPath(event.key, '/actions/change-object-status'), {
      objects: ['B-1', 'B-2'],
      status: 'x',
      allowedPreviousStatuses: ['booked'],
    });
    expectError(refused, 400, 'ILLEGAL_STATUS_CHANGE');
    expect(await monthReport(admin)).toEqual([]);
    expect(await usedLabels(admin, event)).toEqual([]);
  });

  it('a refused batch adds nothing to any of its events', async () => {
    const { api, admin, event } = await company();
    const second = await newEvent(api, rowsWithoutSections);
    await done(api, second.key, 'book', { objects: ['C-3'] });
    const refused = await api.post('/events/actions/change-object-status', {
      statusChanges: [
        { event: event.key, status: 'booked', objects: ['C-1', 'C-2'] },
        { event: second.key, status: 'booked', objects: ['C-4', 'C-3'] },
      ],
    });
    expectError(refused, 400, 'OBJECT_NOT_FREE');
    expect(await usedCount(admin, event)).toBe(0);
    expect(await usedLabels(admin, second)).toEqual(['C-3']);
  });

  it('a hold with a token of another workspace adds nothing', async () => {
    const { api, admin, event } = await company();
    const other = await ctx.freshCompany();
    const refused = await api.post(eventPath(event.key, '/actions/hold'), { objects: ['D-5'], holdToken: await holdToken(other.api) });
    expect(refused.status, refused.text).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(await usedLabels(admin, event)).toEqual([]);
  });

  it('input refused before anything runs (unknown label) adds nothing', async () => {
    const { api, admin, event } = await company();
    const refused = await api.post(eventPath(event.key, '/actions/book'), { objects: ['A-1', 'Z-99'] });
    expect(refused.status, refused.text).toBe(400);
    expect(await usedLabels(admin, event)).toEqual([]);
  });
});

describe('usage reports', () => {
  it('two events and two workspaces appear separately per month; /reports/usage sums them', async () => {
    const clients = await ctx.freshCompany();
    const { api, admin } = clients;
    const first = await newEvent(api, rowsWithoutSections);
    const second = await newEvent(api, rowsWithoutSections);
    await done(api, first.key, 'book', { objects: ['A-1', 'A-2', 'A-3'] });
    await done(api, second.key, 'book', { objects: ['B-1'] });

    const workspace2 = await secondWorkspace({ ...ctx, ...clients }, 'Box office');
    const third = await newEvent(workspace2.api, rowsWithoutSections);
    await done(workspace2.api, third.key, 'book', { objects: ['C-1', 'C-2'] });

    const report = await monthReport(admin);
    expect(report).toHaveLength(2);
    const defaultWorkspace = report.find((w) => w.workspace.id === clients.company.workspace.id);
    expect(defaultWorkspace, JSON.stringify(report)).toBeDefined();
    expect(typeof defaultWorkspace!.workspace.name).toBe('string');
    expect(defaultWorkspace!.usageByEvent).toEqual(
      [
        { event: { id: first.id, key: first.key }, numUsedObjects: 3 },
        { event: { id: second.id, key: second.key }, numUsedObjects: 1 },
      ].sort((a, b) => a.event.id - b.event.id),
    );
    const other = report.find((w) => w.workspace.id === workspace2.id);
    expect(other).toEqual({
      workspace: { id: workspace2.id, name: 'Box office' },
      usageByEvent: [{ event: { id: third.id, key: third.key }, numUsedObjects: 2 }],
    });

    expect(await usedLabels(admin, third)).toEqual(['C-1', 'C-2']);

    const all = await get(admin, '/reports/usage');
    const [year, month] = thisMonth().split('-').map(Number);
    expect(all.usage).toEqual([{ month: { year, month }, numUsedObjects: 6 }]);
    expect(Number.isNaN(Date.parse(all.usageCutoffDate))).toBe(false);
  });

  it('a deactivated workspace keeps its usage in the reports', async () => {
    const clients = await ctx.freshCompany();
    const workspace2 = await secondWorkspace({ ...ctx, ...clients });
    const event = await newEvent(workspace2.api, rowsWithoutSections);
    await done(workspace2.api, event.key, 'book', { objects: ['A-1', 'A-2'] });
    const key = (await get(clients.admin, `/workspaces`)).items.find((w: { id: number }) => w.id === workspace2.id).key;
    const deactivated = await clients.admin.post(`/workspaces/${key}/actions/deactivate`);
    expect(deactivated.status, deactivated.text).toBe(204);
    expect(await usedCount(clients.admin, event)).toBe(2);
    expect((await get(clients.admin, '/reports/usage')).usage[0].numUsedObjects).toBe(2);
    expect(await usedLabels(clients.admin, event)).toEqual(['A-1', 'A-2']);
  });

  it('deleting a workspace does not take back the objects it used this month', async () => {
    const clients = await ctx.freshCompany();
    const mine = await newEvent(clients.api, rowsWithoutSections);
    await done(clients.api, mine.key, 'book', { objects: ['A-1'] });
    const workspace2 = await secondWorkspace({ ...ctx, ...clients });
    const event = await newEvent(workspace2.api, rowsWithoutSections);
    await done(workspace2.api, event.key, 'book', { objects: ['A-1', 'A-2'] });
    const key = (await get(clients.admin, `/workspaces`)).items.find((w: { id: number }) => w.id === workspace2.id).key;
    expect((await clients.admin.post(`/workspaces/${key}/actions/deactivate`)).status).toBe(204);
    const deleted = await clients.admin.delete(`/workspaces/${key}`);
    expect(deleted.status, deleted.text).toBe(204);
    // Billing counts what was used: 1 in the default workspace + 2 in the deleted one.
    expect((await get(clients.admin, '/reports/usage')).usage[0].numUsedObjects).toBe(3);
  });

  it('a company sees only its own usage', async () => {
    const mine = await company();
    const theirs = await company();
    await done(mine.api, mine.event.key, 'book', { objects: ['A-1'] });
    await done(theirs.api, theirs.event.key, 'book', { objects: ['A-1', 'A-2'] });
    const report = await monthReport(mine.admin);
    expect(report.flatMap((w) => w.usageByEvent)).toEqual([{ event: { id: mine.event.id, key: mine.event.key }, numUsedObjects: 1 }]);
    expect((await get(mine.admin, '/reports/usage')).usage.map((m: { numUsedObjects: number }) => m.numUsedObjects)).toEqual([1]);
  });

  it('a company without usage: empty usage and an empty month', async () => {
    const { admin } = await ctx.freshCompany();
    expect((await get(admin, '/reports/usage')).usage).toEqual([]);
    expect(await monthReport(admin)).toEqual([]);
  });

  it('a month without usage → []', async () => {
    const { api, admin, event } = await company();
    await done(api, event.key, 'book', { objects: ['A-1'] });
    expect(await monthReport(admin, '2020-01')).toEqual([]);
    expect(await usedLabels(admin, event, '2020-01')).toEqual([]);
  });

  it('the per-event route lists the used labels, sorted', async () => {
    const { api, admin, event } = await company();
    await done(api, event.key, 'book', { objects: ['C-2', 'A-8', 'B-4'] });
    expect(await get(admin, `/reports/usage/month/${thisMonth()}/event/${event.id}`)).toEqual([
      { object: 'A-8' },
      { object: 'B-4' },
      { object: 'C-2' },
    ]);
  });

  it('a deleted event keeps its usage', async () => {
    const { api, admin, event } = await company();
    await done(api, event.key, 'book', { objects: ['A-1', 'A-2'] });
    const deleted = await api.delete(eventPath(event.key));
    expect(deleted.status, deleted.text).toBe(204);
    const entries = (await monthReport(admin)).flatMap((w) => w.usageByEvent);
    expect(entries.map((e) => [e.event.id, e.numUsedObjects])).toEqual([[event.id, 2]]);
    expect(await usedLabels(admin, event)).toEqual(['A-1', 'A-2']);
  });

  it('malformed months → 400', async () => {
    const { admin, event } = await company();
    for (const month of ['2026-13', '2026-00', '2026-1', '26-01', '202601', 'latest', '2026-01-01']) {
      expectError(await admin.get(`/reports/usage/month/${month}`), 400, 'GENERAL_ERROR');
      expectError(await admin.get(`/reports/usage/month/${month}/event/${event.id}`), 400, 'GENERAL_ERROR');
    }
  });

  it('a non-numeric event id → 400', async () => {
    const { admin, event } = await company();
    expectError(await admin.get(`/reports/usage/month/${thisMonth()}/event/${encodeURIComponent(event.key)}`), 400, 'GENERAL_ERROR');
  });

  it('a workspace secret key → 403 on every usage route', async () => {
    const { api, event } = await company();
    for (const path of ['/reports/usage', `/reports/usage/month/${thisMonth()}`, `/reports/usage/month/${thisMonth()}/event/${event.id}`]) {
      const response = await api.get(path);
      expect(response.status, `${path}: ${response.text}`).toBe(403);
    }
  });

  it('no key → 401', async () => {
    const response = await fetch(`${ctx.server.url}/reports/usage`);
    expect(response.status).toBe(401);
  });

  it('another company’s event id → 404 EVENT_NOT_FOUND (used or not); an unknown id → 404', async () => {
    const mine = await company();
    const theirs = await company();
    await done(theirs.api, theirs.event.key, 'book', { objects: ['A-1'] });
    const unused = await newEvent(theirs.api, rowsWithoutSections);
    expectError(await mine.admin.get(`/reports/usage/month/${thisMonth()}/event/${theirs.event.id}`), 404, 'EVENT_NOT_FOUND');
    expectError(await mine.admin.get(`/reports/usage/month/${thisMonth()}/event/${unused.id}`), 404, 'EVENT_NOT_FOUND');
    expectError(await mine.admin.get(`/reports/usage/month/${thisMonth()}/event/999999999999`), 404, 'EVENT_NOT_FOUND');
  });

  it('an event of the company without usage → []', async () => {
    const { admin, event } = await company();
    expect(await usedLabels(admin, event)).toEqual([]);
  });
});

describe('used objects are counted by the history drain (docs/history.md, "Used objects")', () => {
  // No background jobs: nothing drains unless the test runs the drain.
  const quiet = useServerWithCompany({ BACKGROUND_JOBS: 'off' });

  const counts = async (admin: Api) => {
    const response = await admin.get<MonthReport[]>(`/reports/usage/month/${thisMonth()}`);
    expect(response.status, response.text).toBe(200);
    return Object.fromEntries(response.body.flatMap((w) => w.usageByEvent).map((e) => [e.event.id, e.numUsedObjects]));
  };

  it('show up once the drain has run; an event deleted before the drain reached its changes keeps them', async () => {
    const { api, admin } = await quiet.freshCompany();
    const kept = await newEvent(api, rowsWithoutSections);
    const gone = await newEvent(api, rowsWithoutSections);
    await done(api, kept.key, 'book', { objects: ['A-1', 'A-2'] });
    await done(api, gone.key, 'book', { objects: ['A-1', 'A-2', 'A-3'] });
    expect(await counts(admin)).toEqual({});
    // Deleting an event counts what the drain has not reached, before its history goes.
    const deleted = await api.delete(eventPath(gone.key));
    expect(deleted.status, deleted.text).toBe(204);
    expect(await counts(admin)).toEqual({ [gone.id]: 3 });
    await usageCounted(quiet.server);
    expect(await counts(admin)).toEqual({ [gone.id]: 3, [kept.id]: 2 });
  });
  it('an entry written by a version that counted in the status function (no usage mark) is stored but not counted again', async () => {
    const { api, admin } = await quiet.freshCompany();
    const event = await newEvent(api, rowsWithoutSections);
    const { redis, historyStreams } = quiet.server.app.parts;
    const ref = { _id: event.id, tag: String(event.id) };
    // What an older server's function wrote: the entry alone, having counted the object itself.
    const entry = [Date.now(), 'A-5', 'booked', 1, '', '', 'API_CALL', '127.0.0.1', ''].join(FIELD_SEPARATOR);
    await redis.xadd(historyKey(ref), '0-*', 'c', entry);
    historyStreams.noteChanged([ref]);
    await done(api, event.key, 'book', { objects: ['A-6'] });
    await usageCounted(quiet.server);
    expect(await counts(admin)).toEqual({ [event.id]: 1 });
    const history = await api.get(eventPath(event.key, '/status-changes'));
    expect(history.status, history.text).toBe(200);
    expect(history.body.items.map((item: { objectLabel: string }) => item.objectLabel).sort()).toEqual(['A-5', 'A-6']);
  });
});
