import type { VersionName } from '../domain/chart.js';
import { bookableObjects } from '../domain/eventObjectRules.js';
import { describeObject, type ChartObject, type ObjectIndex } from '../domain/objectIndex.js';
import {
  CHART_DIMENSIONS,
  emptyGroups,
  groupOf,
  summaryReport,
  Tally,
  tallyChartObject,
  type ChartReportType,
  type ChartSummaryType,
  type SummaryNode,
} from '../domain/reports.js';
import type { WorkspaceDoc } from '../domain/tenant.js';
import { inSlices } from '../util/slices.js';
import type { Charts } from '../metadata/charts.js';
import { findChartVersion } from './chartLookup.js';
import type { ObjectIndexes } from './objectIndexes.js';
import { groupedJson } from './reportJson.js';
import type { ReportLane } from './reportLane.js';

// Chart reports (docs/reports.md, "Chart reports"): the objects of a chart version as
// chart object info (object info without status or booking), grouped or counted, with its
// tables booked as a whole, by seat, or as the chart says.

/**
 * How the report takes tables: `true` the tables, `false` their seats, `chart` each as the
 * chart says, `all` (no bookWholeTables given) every table and every table seat.
 */
export type BookWholeTables = 'true' | 'false' | 'chart' | 'all';

const TABLE_MODES = { true: 'ALL_BY_TABLE', false: 'ALL_BY_SEAT', chart: 'INHERIT' } as const;

/** What the chart report routes ask for (answered in the report thread: src/services/reportThreadClient.ts). */
export type ChartReports = Pick<ChartReportService, 'detailed' | 'summary'>;

export class ChartReportService {
  constructor(
    private readonly charts: Charts,
    private readonly indexes: ObjectIndexes,
    private readonly lane: ReportLane,
  ) {}

  /** A detailed report as gzipped JSON: `{group: [chart object info, ...]}`. */
  async detailed(workspace: WorkspaceDoc, chartKey: string, type: ChartReportType, tables: BookWholeTables, which: VersionName): Promise<Buffer> {
    const { index, objects, drawingId } = await this.objectsOf(workspace, chartKey, tables, which);
    const always = emptyGroups(type, index, index.categories);
    const entry = (object: ChartObject) => {
      const info = describeObject(index, object);
      return { group: groupOf(type, info), json: () => JSON.stringify(info) };
    };
    return this.lane.run(`chart\u0000${drawingId}\u0000${type}\u0000${tables}`, () => groupedJson(objects, entry, always, this.lane));
  }

  /** A summary by `type`: places per group, split by section, object type, category and zone. */
  async summary(workspace: WorkspaceDoc, chartKey: string, type: ChartSummaryType, tables: BookWholeTables, which: VersionName): Promise<Record<string, SummaryNode>> {
    const { index, objects, drawingId } = await this.objectsOf(workspace, chartKey, tables, which);
    return this.lane.run(`chart\u0000${drawingId}\u0000${type}/summary\u0000${tables}`, async () => {
      const tally = new Tally(CHART_DIMENSIONS);
      await inSlices(objects, (object) => tallyChartObject(tally, object), this.lane.pause);
      return summaryReport(tally, type, emptyGroups(type, index, index.categories), false);
    });
  }

  private async objectsOf(workspace: WorkspaceDoc, chartKey: string, tables: BookWholeTables, which: VersionName): Promise<{ index: ObjectIndex; objects: ChartObject[]; drawingId: string }> {
    const { doc, version } = await findChartVersion(this.charts, workspace, chartKey, which);
    const index = await this.indexes.of(doc.key, version);
    const objects = tables === 'all' ? index.objects : bookableObjects({ tableBookingConfig: { mode: TABLE_MODES[tables] } }, index);
    return { index, drawingId: version.drawingId, objects };
  }
}
