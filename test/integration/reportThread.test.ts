import { describe, expect, it } from 'vitest';
import type { WorkspaceDoc } from '../../src/metadata/workspaces.js';
import { generatedDrawing, rowLabel } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { action, createEvent, done } from '../support/events.js';
import { eventually, expectError, useServerWithCompany } from '../support/harness.js';

// Reports are computed in the report thread (docs/reports.md, "The report thread"): it
// starts with the first report; one that dies fails the reports it had with 503 and the
// spec's error body, and is started again; reports and bookings run side by side.

const ROWS = 100;
const SEATS_PER_ROW = 200;
const SEATS = ROWS * SEATS_PER_ROW;
const labels = Array.from({ length: SEATS }, (_, i) => `${rowLabel(Math.floor(i / SEATS_PER_ROW))}-${(i % SEATS_PER_ROW) + 1}`);

const ctx = useServerWithCompany();
const reportPath = (event: string, report: string) => `/reports/events/${encodeURIComponent(event)}/${report}`;

async function bigEvent(): Promise<string> {
  const chart = await uploadDrawing(ctx.api, generatedDrawing({ sections: 0, rowsPerSection: ROWS, seatsPerRow: SEATS_PER_ROW }));
  return createEvent(ctx.api, chart.key);
}

/** The labels under each status of a detailed byStatus report. */
async function byStatus(event: string): Promise<Record<string, string[]>> {
  const response = await ctx.api.get(reportPath(event, 'byStatus'));
  expect(response.status, response.text).toBe(200);
  return Object.fromEntries(Object.entries(response.body as Record<string, { label: string }[]>).map(([status, items]) => [status, items.map((item) => item.label)]));
}

describe('the report thread', () => {
  it('starts with the first report; a report whose thread dies answers 503, as does one while it restarts; the next after the restart is right', async () => {
    const reports = ctx.server.app.parts.reports;
    expect(reports.thread.running).toBe(false);
    const event = await bigEvent();
    await done(ctx.api, event, 'book', { objects: ['A-1', 'A-2'] });
    const summary = await ctx.api.get(reportPath(event, 'byStatus/summary'));
    expect(summary.status, summary.text).toBe(200);
    expect(summary.body.booked.count).toBe(2);
    expect(reports.thread.running).toBe(true);

    // Killed with the report in it.
    const answer = ctx.api.get(reportPath(event, 'byStatus'));
    await eventually(async () => reports.pending === 1, 5_000, 1);
    await reports.thread.kill();
    const killed = await answer;
    expectError(killed, 503, 'SERVICE_UNAVAILABLE');
    expect(killed.headers.get('retry-after')).toBe('1');
    // Dead, before its restart: a report is refused at once.
    expect(reports.thread.running).toBe(false);
    await expect(reports.events.flat({} as WorkspaceDoc, event)).rejects.toMatchObject({ status: 503, errors: [{ code: 'SERVICE_UNAVAILABLE' }] });

    await eventually(async () => reports.thread.running, 10_000);
    const after = await byStatus(event);
    expect(after.booked).toEqual(['A-1', 'A-2']);
    expect(after.free).toHaveLength(SEATS - 2);
  });

  it('10 reports at once and bookings side by side: all answered, each report a consistent view, the last one every booking', async () => {
    const event = await bigEvent();
    const pairs = Array.from({ length: 40 }, (_, i) => [labels[i * 2]!, labels[i * 2 + 1]!]);
    const reportKinds = ['byStatus/summary', 'byStatus', 'bySection/summary/deep', 'byStatus/summary', 'byStatus'];
    const reading = Promise.all(Array.from({ length: 10 }, (_, i) => ctx.api.get(reportPath(event, reportKinds[i % reportKinds.length]!)).then((response) => ({ kind: reportKinds[i % reportKinds.length]!, response }))));
    const booking = Promise.all(pairs.map((objects) => action(ctx.api, event, 'book', { objects })));
    const [read, booked] = await Promise.all([reading, booking]);

    for (const response of booked) expect(response.status, response.text).toBe(204);
    for (const { kind, response } of read) {
      expect(response.status, `${kind}: ${response.text.slice(0, 200)}`).toBe(200);
      if (kind === 'byStatus') {
        const bookedLabels: string[] = (response.body.booked ?? []).map((item: { label: string }) => item.label);
        expect(bookedLabels.length + response.body.free.length).toBe(SEATS);
        // Whole pairs: a booking is one script call.
        expect(bookedLabels.length % 2).toBe(0);
      } else if (kind === 'byStatus/summary') {
        const count = response.body.booked?.count ?? 0;
        expect(count + response.body.free.count).toBe(SEATS);
        expect(count % 2).toBe(0);
      } else {
        expect(response.body.NO_SECTION).toMatchObject({ count: SEATS });
      }
    }
    const final = await byStatus(event);
    expect(final.booked!.sort()).toEqual(pairs.flat().sort());
    expect(final.free).toHaveLength(SEATS - pairs.length * 2);
  });
});
