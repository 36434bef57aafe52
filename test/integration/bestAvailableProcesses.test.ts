import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedDrawing } from '../../bench/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { action, createEvent } from '../support/events.js';
import { client, createTestCompany, newDatabaseName, startTestServer, type Api, type TestServer } from '../support/harness.js';

// Best available from two server processes at once (docs/best-available.md, "Choosing from
// a snapshot"): each chooses from its own view, so they pick the same seats and the status
// script refuses one of them; the refused request chooses again from a view read since.
// Every request must still succeed while seats remain, and no seat may be given twice.

describe('best available on two servers sharing Redis and MongoDB', () => {
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

  it('400 concurrent requests of 2-4 seats, half on each server: all succeed, no seat twice, the event holds exactly what was answered', async () => {
    const chart = (await uploadDrawing(onA, generatedDrawing({ sections: 0, rowsPerSection: 40, seatsPerRow: 50 }))).key;
    const event = await createEvent(onA, chart);
    const sizes = Array.from({ length: 400 }, (_, i) => 2 + (i % 3));
    const answers = await Promise.all(sizes.map((number, i) => action(i % 2 === 0 ? onA : onB, event, 'book', { bestAvailable: { number } })));
    const given: string[] = [];
    answers.forEach((response, i) => {
      expect(response.status, response.text).toBe(200);
      expect(response.body.objects).toHaveLength(sizes[i]!);
      given.push(...response.body.objects);
    });
    expect(new Set(given).size).toBe(given.length);
    const report = await onB.get(`/reports/events/${encodeURIComponent(event)}/byStatus/booked`);
    expect(new Set((report.body.booked as { label: string }[]).map((o) => o.label))).toEqual(new Set(given));
  }, 60_000);
});
