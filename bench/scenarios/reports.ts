import autocannon from 'autocannon';
import type { BenchEvent } from '../lib/admin.js';
import { measure, type Figures } from '../lib/measure.js';
import { againstBook2Alone, bookTwo } from './bookTwo.js';
import type { BenchContext, SeededChart } from './context.js';

// Reports of a big event, live (docs/reports.md, "Big events"): an event on the
// 100,000-seat chart with every other seat booked (50,000; the smoke run uses the
// 10,000-seat chart).
// - reportSummary100k: one connection asks for its by-status summary again and again
//   (target: p99 ≤ 150 ms), then for its by-status detailed report (target: p99 ≤ 1 s); the
//   first summary, untimed, starts the report thread and loads the event there
//   (`firstSummaryMs`: paid once per server process);
// - book2WhileReporting: book2 alone, then book2 again while 10 connections request that
//   event's reports in a loop (summaries, deep summaries, and one detailed report in four);
//   `ratioToBook2Alone` is the share of its rps book2 keeps (target ≥ 0.9).

const REPORT_CONNECTIONS = 10;
const SUMMARY_REQUESTS = { full: 100, quick: 40, smoke: 5 };
const DETAILED_REQUESTS = { full: 10, quick: 5, smoke: 2 };

const made = new WeakMap<BenchContext, Promise<BenchEvent>>();

/** The chart reports are read on: 100,000 seats, but 10,000 in the smoke run. */
const chartOf = (ctx: BenchContext): SeededChart => (ctx.scale.mode === 'smoke' ? ctx.charts.seats10k : ctx.charts.seats100k);

/** The event both scenarios read, made once per run: every other seat of the chart booked. */
export function halfBookedEvent(ctx: BenchContext): Promise<BenchEvent> {
  if (!made.has(ctx)) {
    made.set(ctx, (async () => {
      const chart = chartOf(ctx);
      const [event] = await ctx.newEvents(chart, 1);
      await ctx.admin.book(event!.key, chart.labels.filter((_, i) => i % 2 === 0));
      return event!;
    })());
  }
  return made.get(ctx)!;
}

const reportPath = (event: BenchEvent, report: string) => `/reports/events/${encodeURIComponent(event.key)}/${report}`;

export async function reportSummary100k(ctx: BenchContext): Promise<Figures> {
  const event = await halfBookedEvent(ctx);
  const headers = ctx.workspaceHeaders;
  const one = { connections: 1, durationSeconds: ctx.settings.durationSeconds };
  const firstBegan = performance.now();
  const first = await fetch(ctx.serverUrl + reportPath(event, 'byStatus/summary'), { headers });
  await first.arrayBuffer();
  const firstSummaryMs = Math.round(performance.now() - firstBegan);
  const cpuBefore = ctx.serverCpuSeconds?.() ?? NaN;
  const summary = await measure(one, { url: ctx.serverUrl + reportPath(event, 'byStatus/summary'), headers, amount: SUMMARY_REQUESTS[ctx.scale.mode] });
  const cpuBetween = ctx.serverCpuSeconds?.() ?? NaN;
  const detailed = await measure(one, { url: ctx.serverUrl + reportPath(event, 'byStatus'), headers, amount: DETAILED_REQUESTS[ctx.scale.mode], timeout: 30 });
  const cpuAfter = ctx.serverCpuSeconds?.() ?? NaN;
  // Server CPU per report: what a report costs, however busy the rest of the machine is
  // (left out when the bench did not start the server: `--target`).
  const cpuMs = (seconds: number, requests: number) => (Number.isNaN(seconds) ? undefined : Math.round((seconds * 1000) / Math.max(1, requests)));
  const sample = await fetch(ctx.serverUrl + reportPath(event, 'byStatus'), { headers });
  const bytes = (await sample.arrayBuffer()).byteLength;
  return {
    ...summary,
    non2xx: summary.non2xx + detailed.non2xx + (first.ok ? 0 : 1),
    errors: summary.errors + detailed.errors,
    objects: chartOf(ctx).labels.length,
    firstSummaryMs,
    summaryServerCpuMs: cpuMs(cpuBetween - cpuBefore, summary.requests),
    detailedP50Ms: detailed.p50Ms,
    detailedServerCpuMs: cpuMs(cpuAfter - cpuBetween, detailed.requests),
    detailedP99Ms: detailed.p99Ms,
    detailedJsonBytes: bytes,
    detailedGzipBytes: Number(sample.headers.get('content-length') ?? 0),
  };
}

/** The reports the 10 connections loop over: summaries of several kinds, one detailed report in four. */
function reportRequests(event: BenchEvent, headers: Record<string, string>): autocannon.Request[] {
  return ['byStatus/summary', 'byCategoryKey/summary', 'bySection/summary/deep', 'byStatus'].map((report) => ({
    method: 'GET',
    path: reportPath(event, report),
    headers,
  }));
}

export async function book2WhileReporting(ctx: BenchContext): Promise<Figures> {
  const event = await halfBookedEvent(ctx);
  const alone = await bookTwo(ctx);
  const reporting = autocannon({
    url: ctx.serverUrl,
    connections: REPORT_CONNECTIONS,
    duration: ctx.settings.durationSeconds,
    requests: reportRequests(event, ctx.workspaceHeaders),
    timeout: 30,
  }) as unknown as autocannon.Instance & Promise<autocannon.Result>;
  const [booking, reports] = await Promise.all([bookTwo(ctx), reporting]);
  const both = againstBook2Alone(booking, alone);
  return {
    ...booking,
    ...both,
    reportsPerSecond: reports.requests.average,
    reportP50Ms: reports.latency.p50,
    reportP99Ms: reports.latency.p99,
    reportNon2xx: reports.non2xx,
    non2xx: both.non2xx + reports.non2xx,
    errors: both.errors + reports.errors + reports.timeouts,
  };
}
