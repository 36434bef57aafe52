import { chartStatus, type ChartDoc } from '../domain/chart.js';
import type { CompanyContext } from '../http/route.js';

// The chart record (docs/seatsio-behaviour.md, "Charts") as create, retrieve, list and
// copy show it.

export interface ChartRecordOptions {
  baseUrl: string;
  /** The chart's events as GET /events/{key} shows them (eventRecords), newest first. */
  events?: Record<string, unknown>[];
  validation?: { errors: string[]; warnings: string[] };
  venueType?: boolean;
  zones?: boolean;
}

export function chartRecord(doc: ChartDoc, options: ChartRecordOptions): Record<string, unknown> {
  const thumbnail = (which: string) => `${options.baseUrl}/charts/${encodeURIComponent(doc.key)}/version/${which}/thumbnail`;
  const record: Record<string, unknown> = {
    id: doc._id,
    key: doc.key,
    name: doc.name,
    status: chartStatus(doc),
    tags: doc.tags,
    archived: doc.archived,
    publishedVersionThumbnailUrl: thumbnail('published'),
    draftVersionThumbnailUrl: doc.draft ? thumbnail('draft') : null,
  };
  if (options.events) record.events = options.events;
  if (options.validation) record.validation = options.validation;
  if (options.venueType) record.venueType = doc.published.venueType;
  if (options.zones && doc.published.zones.length > 0) record.zones = doc.published.zones;
  return record;
}

/** Where thumbnails are served: PUBLIC_URL if configured, else the host the client called. */
export function baseUrl(publicUrl: string | undefined, ctx: CompanyContext): string {
  return publicUrl ?? `http://${ctx.headers.host || 'localhost'}`;
}
