import { failedValidators } from './chartValidation.js';
import type { ChartValidator } from './companySettings.js';
import { DEFAULT_CHART_NAME, type Drawing } from './drawing.js';
import { buildObjectIndex, type ChartVenueType, type Zone } from './objectIndex.js';

// A chart as the domain reads it: its record and, per version, what listing needs without
// opening the drawing. How the store keeps them is src/metadata/charts.ts.

export interface ChartVersion {
  drawingId: string;
  name: string;
  venueType: ChartVenueType;
  zones: Zone[];
  failedValidators: ChartValidator[];
  /** A focal point exists (best available works). */
  hasFocalPoint: boolean;
}

export interface ChartDoc {
  _id: number;
  workspaceId: number;
  key: string;
  /** Name of the published version, kept here for the name filter. */
  name: string;
  tags: string[];
  archived: boolean;
  published: ChartVersion;
  draft: ChartVersion | null;
  /** Set once an event uses the chart; from then on edits go to a draft. */
  hasEvents: boolean;
  createdOn: Date;
  /** Bumped on every change; writes are conditional on it. */
  version: number;
}

export type ChartChange = Partial<Pick<ChartDoc, 'name' | 'tags' | 'archived' | 'published' | 'draft' | 'hasEvents'>>;

export type VersionName = 'published' | 'draft';
export const VERSION_NAMES: readonly VersionName[] = ['published', 'draft'];

export type ChartStatus = 'NOT_USED' | 'PUBLISHED' | 'PUBLISHED_WITH_DRAFT';

export function chartStatus(doc: Pick<ChartDoc, 'draft' | 'hasEvents'>): ChartStatus {
  if (doc.draft) return 'PUBLISHED_WITH_DRAFT';
  return doc.hasEvents ? 'PUBLISHED' : 'NOT_USED';
}

/** What the chart record and listing need to know about a drawing, computed once per version. */
export function describeVersion(drawing: Drawing, drawingId: string, index = buildObjectIndex(drawing)): ChartVersion {
  return {
    drawingId,
    name: drawing.name ?? DEFAULT_CHART_NAME,
    venueType: index.venueType,
    zones: index.zones,
    failedValidators: failedValidators(index),
    hasFocalPoint: index.focalPoint !== null || index.zoneFocalPoints,
  };
}
