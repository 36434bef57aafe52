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
import type { WorkspaceDoc } from '../metadata/workspaces.js';
import { inSlices } from '../util/slices.js';
import type { ChartService } from './chartService.js';
import type { ObjectIndexes } from './objectIndexes.js';
import { groupedJson } from './reportJson.js';

// Chart reports (docs/reports.md, "Chart reports"): the objects of a chart version as
// chart object info (object info without status or booking), grouped or counted, with its
// tables booked as a whole, by seat, or as the chart says.

/** How the report takes tables: `true` the tables, `false` their seats, `chart` each as the chart says. */
export type BookWholeTables = 'true' | 'false' | 'chart';

const TABLE_MODES = { true: 'ALL_BY_TABLE', false: 'ALL_BY_SEAT', chart: 'INHERIT' } as const;

export class ChartReportService {
  constructor(
    private readonly charts: ChartService,
    private readonly indexes: ObjectIndexes,
  ) {}

  /** A detailed report as JSON: `{group: [chart object info, ...]}`. */
  async detailed(workspace: WorkspaceDoc, chartKey: string, type: ChartReportType, tables: BookWholeTables, which: VersionName): Promise<Buffer> {
    const { index, objects } = await this.objectsOf(workspace, chartKey, tables, which);
    return groupedJson(objects, (object) => describeObject(index, object), (info) => groupOf(type, info), emptyGroups(type, index, index.categories));
  }

  /** A summary by `type`: places per group, split by section, object type, category and zone. */
  async summary(workspace: WorkspaceDoc, chartKey: string, type: ChartSummaryType, tables: BookWholeTables, which: VersionName): Promise<Record<string, SummaryNode>> {
    const { index, objects } = await this.objectsOf(workspace, chartKey, tables, which);
    const tally = new Tally(CHART_DIMENSIONS);
    await inSlices(objects, (object) => tallyChartObject(tally, object));
    return summaryReport(tally, type, emptyGroups(type, index, index.categories), false);
  }

  private async objectsOf(workspace: WorkspaceDoc, chartKey: string, tables: BookWholeTables, which: VersionName): Promise<{ index: ObjectIndex; objects: ChartObject[] }> {
    const { doc, version } = await this.charts.findVersion(workspace, chartKey, which);
    const index = await this.indexes.of(doc.key, version);
    return { index, objects: bookableObjects({ tableBookingConfig: { mode: TABLE_MODES[tables] } }, index) };
  }
}
