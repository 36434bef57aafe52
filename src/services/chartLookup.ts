import type { ChartDoc, ChartVersion, VersionName } from '../domain/chart.js';
import { notFound } from '../domain/errors.js';
import type { Charts } from '../metadata/charts.js';
import type { WorkspaceDoc } from '../metadata/workspaces.js';

// Finding a chart and one of its versions, with the 404s the API gives: ChartService's, and
// the chart reports' in the report thread, which has no ChartService (src/reportThread.ts).

/** The chart of `key` in the workspace; 404 CHART_NOT_FOUND without one. */
export async function findChart(charts: Charts, workspace: WorkspaceDoc, key: string): Promise<ChartDoc> {
  const doc = await charts.findByKey(workspace._id, key);
  if (!doc) throw notFound('CHART_NOT_FOUND', `Chart not found: ${key} was not found in workspace ${workspace.key}`);
  return doc;
}

/** One version of a chart; 404 CHART_VERSION_NOT_FOUND for a draft it does not have. */
export function chartVersion(doc: ChartDoc, which: VersionName): ChartVersion {
  const version = which === 'published' ? doc.published : doc.draft;
  if (!version) throw notFound('CHART_VERSION_NOT_FOUND', `Chart ${doc.key} has no draft version`);
  return version;
}

/** The chart of `key` and one of its versions (the reports read them so, in the report thread too). */
export async function findChartVersion(charts: Charts, workspace: WorkspaceDoc, key: string, which: VersionName): Promise<{ doc: ChartDoc; version: ChartVersion }> {
  const doc = await findChart(charts, workspace, key);
  return { doc, version: chartVersion(doc, which) };
}
