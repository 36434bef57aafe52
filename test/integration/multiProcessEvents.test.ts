import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsWithoutSections, withTables } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { action, createEvent, expectBookedAsAnswered } from '../support/events.js';
import { generatedDrawing } from '../../bench/drawings.js';
import { client, createTestCompany, eventually, newDatabaseName, startTestServer, type Api, type TestServer } from '../support/harness.js';

// Two servers sharing Redis and one MongoDB database. The sales flow serves events from
// each process's memory (src/services/eventCatalog.ts): a change made through A must reach B's
// sales flow through the invalidation bus within a second, never a stale answer after that.
// Best available chooses from each process's own view of an event (docs/best-available.md):
// the two choose the same seats, the status script refuses one, which chooses again.

const PROPAGATION_MS = 1000;

describe('events changed on one server, sold on another', () => {
  let a: TestServer;
  let b: TestServer;
  let onA: Api;
  let onB: Api;

  beforeAll(async () => {
    const database = newDatabaseName();
    a = await startTestServer({ MONGODB_DB: database });
    b = await startTestServer({ MONGODB_DB: database });
    const company = await createTestCompany(a.url);
    onA = client(a.url, company.workspace.secretKey);
    onB = client(b.url, company.workspace.secretKey);
  });
  afterAll(async () => {
    await Promise.allSettled([a?.stop(), b?.stop()]);
  });

  /** Waits until `attempt` on B answers `status`; asserts it took under a second. */
  async function untilOnB(attempt: () => Promise<{ status: number; text: string }>, status: number): Promise<void> {
    let last = { status: 0, text: '' };
    const elapsed = await eventually(async () => {
      last = await attempt();
      return last.status === status;
    }, PROPAGATION_MS).catch((error: Error) => {
      throw new Error(`${error.message}; B last answered ${last.status} ${last.text}`);
    });
    expect(elapsed).toBeLessThan(PROPAGATION_MS);
  }

  it('sees a changed table booking mode', async () => {
    const chart = await uploadDrawing(onA, withTables);
    const event = await createEvent(onA, chart.key, { tableBookingConfig: { mode: 'ALL_BY_SEAT' } });
    // B caches the event: a table is refused while tables are booked by seat.
    const bookTable = () => onB.post(`/events/${event}/actions/book`, { objects: ['T1'] });
    expect((await bookTable()).body.errors[0].code).toBe('OBJECT_NOT_BOOKABLE');

    const changed = await onA.post(`/events/${event}`, { tableBookingConfig: { mode: 'ALL_BY_TABLE' } });
    expect(changed.status, changed.text).toBe(200);
    await untilOnB(bookTable, 204);
  });

  it('sees a re-keyed event under its new key only', async () => {
    const chart = await uploadDrawing(onA, rowsWithoutSections);
    const event = await createEvent(onA, chart.key);
    expect((await onB.post(`/events/${event}/actions/book`, { objects: ['A-1'] })).status).toBe(204);

    const renamed = await onA.post(`/events/${event}`, { eventKey: `${event}-renamed` });
    expect(renamed.status, renamed.text).toBe(200);
    await untilOnB(() => onB.post(`/events/${event}/actions/book`, { objects: ['A-2'] }), 404);
    // The same inventory under the new key: A-1 is still booked.
    const info = await onB.get(`/events/${event}-renamed/objects?label=A-1`);
    expect(info.body['A-1'].status).toBe('booked');
  });

  it('sees a published chart version', async () => {
    const chart = await uploadDrawing(onA, rowsWithoutSections);
    const event = await createEvent(onA, chart.key);
    const categoryOnB = async () => {
      const response = await onB.get(`/events/${event}/objects?label=A-1`);
      return { status: response.body['A-1'].categoryLabel === 'Premium' ? 200 : 409, text: response.text };
    };
    expect((await categoryOnB()).status).toBe(409);
    expect((await onA.post(`/charts/${chart.key}/categories/9`, { label: 'Premium' })).status).toBe(204);
    expect((await onA.post(`/charts/${chart.key}/version/draft/actions/publish`)).status).toBe(204);
    await untilOnB(categoryOnB, 200);
  });

  it('loads an event it has not seen with the chart version published since another event of the chart was loaded', async () => {
    // Each server keeps the chart's record for its events' loads (src/services/eventCatalog.ts);
    // a publish must drop it there, on A at once and on B through the bus.
    const chart = await uploadDrawing(onA, rowsWithoutSections);
    const first = await createEvent(onA, chart.key);
    const second = await createEvent(onA, chart.key);
    const third = await createEvent(onA, chart.key);
    const categoryOn = async (api: Api, event: string) => (await api.get(`/events/${event}/objects?label=A-1`)).body['A-1'].categoryLabel as string | undefined;
    expect(await categoryOn(onA, first)).not.toBe('Premium');
    expect(await categoryOn(onB, first)).not.toBe('Premium');
    expect((await onA.post(`/charts/${chart.key}/categories/9`, { label: 'Premium' })).status).toBe(204);
    expect((await onA.post(`/charts/${chart.key}/version/draft/actions/publish`)).status).toBe(204);
    expect(await categoryOn(onA, second)).toBe('Premium');
    await untilOnB(async () => {
      // B may load it before the bus brings the publish; the message drops it with the
      // chart's record, and the next load reads both again.
      const label = await categoryOn(onB, third);
      return { status: label === 'Premium' ? 200 : 409, text: String(label) };
    }, 200);
  });

  it('sees a deleted event as gone', async () => {
    const chart = await uploadDrawing(onA, rowsWithoutSections);
    const event = await createEvent(onA, chart.key);
    const book = () => onB.post(`/events/${event}/actions/book`, { objects: ['A-1'] });
    expect((await book()).status).toBe(204);
    expect((await onA.delete(`/events/${event}`)).status).toBe(204);
    await untilOnB(book, 404);
  });

  it('best available: 400 concurrent requests of 2-4 seats, half on each server, all succeed, no seat twice, the event holds exactly what was answered', async () => {
    const chart = (await uploadDrawing(onA, generatedDrawing({ sections: 0, rowsPerSection: 40, seatsPerRow: 50 }))).key;
    const event = await createEvent(onA, chart);
    const sizes = Array.from({ length: 400 }, (_, i) => 2 + (i % 3));
    const answers = await Promise.all(sizes.map((number, i) => action(i % 2 === 0 ? onA : onB, event, 'book', { bestAvailable: { number } })));
    await expectBookedAsAnswered(onB, event, answers, sizes);
  }, 60_000);
});
