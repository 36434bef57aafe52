import Type from 'typebox';
import { VERSION_NAMES, type VersionName } from '../domain/chart.js';
import { badRequest } from '../domain/errors.js';
import { CHART_REPORT_TYPES, CHART_SUMMARY_TYPES, isOneOf, reportTypeIn } from '../domain/reports.js';
import type { Query } from '../http/query.js';
import { ok, workspaceRoute, type RouteDef } from '../http/route.js';
import type { BookWholeTables, ChartReports } from '../services/chartReportService.js';

// Chart reports (docs/reports.md, "Chart reports"): the objects of a chart's published or
// draft version, by label, object type, category, section or zone, and their summaries.
// Gzipped whatever the client sent in Accept-Encoding, like every report.

const ChartReportQuery = Type.Object({
  bookWholeTables: Type.Optional(Type.String({ description: 'true: tables, not their seats; false: seats, not tables; chart: as the chart says; absent: every table and every table seat' })),
  version: Type.Optional(Type.String({ description: 'published (default) or draft' })),
});

const BOOK_WHOLE_TABLES: readonly BookWholeTables[] = ['true', 'false', 'chart'];

/** Without bookWholeTables, every table and every table seat (docs/reports.md, "Chart reports"). */
function tablesOf(query: Query): BookWholeTables {
  const given = query.one('bookWholeTables');
  if (given === undefined) return 'all';
  if (!isOneOf(BOOK_WHOLE_TABLES, given)) throw badRequest('GENERAL_ERROR', `bookWholeTables must be true, false or chart, got "${given}"`);
  return given;
}

function options(query: Query): { tables: BookWholeTables; which: VersionName } {
  const tables = tablesOf(query);
  const which = query.one('version') ?? 'published';
  if (!isOneOf(VERSION_NAMES, which)) throw badRequest('GENERAL_ERROR', `version must be published or draft, got "${which}"`);
  return { tables, which };
}

const reportType = (type: string) => reportTypeIn(CHART_REPORT_TYPES, type, 'chart');
const summaryType = (type: string) => reportTypeIn(CHART_SUMMARY_TYPES, type, 'chart summary');

export function chartReportRoutes(reports: ChartReports): RouteDef[] {
  return [
    workspaceRoute({
      method: 'GET',
      path: '/reports/charts/:key/:type',
      summary: 'A detailed chart report: every bookable object of the chart version, by group',
      answers: { 200: 'group -> chart object infos' },
      query: ChartReportQuery,
      alwaysGzip: true,
      handler: async (ctx) => {
        const type = reportType(ctx.params.type!);
        const { tables, which } = options(ctx.query);
        return { status: 200, body: await reports.detailed(ctx.workspace, ctx.params.key!, type, tables, which), contentType: 'application/json', encoding: 'gzip' };
      },
    }),
    workspaceRoute({
      method: 'GET',
      path: '/reports/charts/:key/:type/summary',
      summary: 'A chart summary report: places by group, split by section, object type, category and zone',
      answers: { 200: 'group -> {count, bySection, byObjectType, byCategoryKey, byCategoryLabel, byZone}' },
      query: ChartReportQuery,
      alwaysGzip: true,
      handler: async (ctx) => {
        const type = summaryType(ctx.params.type!);
        const { tables, which } = options(ctx.query);
        return ok(await reports.summary(ctx.workspace, ctx.params.key!, type, tables, which));
      },
    }),
  ];
}
