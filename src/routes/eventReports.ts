import { EVENT_REPORT_TYPES, EVENT_SUMMARY_TYPES, reportTypeIn } from '../domain/reports.js';
import { ok, workspaceRoute, type Reply, type RouteDef } from '../http/route.js';
import type { EventReports } from '../services/eventReportService.js';

// Event reports (docs/reports.md): detailed `{type}` and `{type}/{filter}`, `{type}/summary`
// and `{type}/summary/deep`, the flat list and its CSV. Not for the sales flow: each reads the
// whole event. Every answer is gzipped, whatever the client sent in Accept-Encoding.

const CSV_SUFFIX = '.csv';

const reportType = (type: string) => reportTypeIn(EVENT_REPORT_TYPES, type, 'event');
const summaryType = (type: string) => reportTypeIn(EVENT_SUMMARY_TYPES, type, 'event summary');

/** A report body the service gzipped already. */
const json = (body: Buffer): Reply => ({ status: 200, body, contentType: 'application/json', encoding: 'gzip' });

export function eventReportRoutes(reports: EventReports): RouteDef[] {
  return [
    workspaceRoute({
      method: 'GET',
      path: '/reports/events/:key',
      summary: 'Every bookable object of the event, sorted by label; `{key}.csv` answers it as CSV',
      answers: { 200: 'array of object infos (or CSV: a header row, one row per object)' },
      alwaysGzip: true,
      handler: async (ctx) => {
        const key = ctx.params.key!;
        if (key.endsWith(CSV_SUFFIX)) {
          const body = await reports.csv(ctx.workspace, key.slice(0, -CSV_SUFFIX.length));
          return { status: 200, body, contentType: 'text/csv; charset=utf-8', encoding: 'gzip' };
        }
        return json(await reports.flat(ctx.workspace, key));
      },
    }),
    workspaceRoute({
      method: 'GET',
      path: '/reports/events/:key/:type',
      summary: 'A detailed report: every bookable object of the event, by group',
      answers: { 200: 'group -> object infos' },
      alwaysGzip: true,
      handler: async (ctx) => json(await reports.detailed(ctx.workspace, ctx.params.key!, reportType(ctx.params.type!))),
    }),
    workspaceRoute({
      method: 'GET',
      path: '/reports/events/:key/:type/:filter',
      summary: 'One group of a detailed report',
      answers: { 200: '{<group>: object infos}, [] when no object is in it' },
      alwaysGzip: true,
      handler: async (ctx) => json(await reports.detailed(ctx.workspace, ctx.params.key!, reportType(ctx.params.type!), ctx.params.filter!)),
    }),
    workspaceRoute({
      method: 'GET',
      path: '/reports/events/:key/:type/summary',
      summary: 'A summary report: places by group, and within each group by every other dimension',
      answers: { 200: 'group -> {count, bySection, byStatus, ...}' },
      alwaysGzip: true,
      handler: async (ctx) => ok(await reports.summary(ctx.workspace, ctx.params.key!, summaryType(ctx.params.type!), false)),
    }),
    workspaceRoute({
      method: 'GET',
      path: '/reports/events/:key/:type/summary/deep',
      summary: 'A deep summary report: a summary whose splits are split once more',
      answers: { 200: 'group -> {count, bySection: {section: {count, byStatus, ...}}, ...}' },
      alwaysGzip: true,
      handler: async (ctx) => ok(await reports.summary(ctx.workspace, ctx.params.key!, summaryType(ctx.params.type!), true)),
    }),
  ];
}
