import { describeVersion, type ChartChange, type ChartDoc, type ChartVersion, type VersionName } from '../domain/chart.js';
import { classifyFailures } from '../domain/chartValidation.js';
import type { ChartValidator, ValidatorLevel } from '../domain/companySettings.js';
import { MAX_DRAWING_BYTES, type Drawing } from '../domain/drawing.js';
import { ApiError, badRequest } from '../domain/errors.js';
import type { EventDoc } from '../domain/event.js';
import { newKey } from '../domain/keys.js';
import { buildObjectIndex, type IndexedCategory } from '../domain/objectIndex.js';
import type { Page, PageRequest } from '../domain/pagination.js';
import type { ChartListFilter, Charts } from '../metadata/charts.js';
import type { Events } from '../metadata/events.js';
import { renderThumbnail } from '../rendering/thumbnail.js';
import { Lru, memoize } from '../util/lru.js';
import { concurrentChartChange, type ObjectIndexes } from './objectIndexes.js';
import { untilWritten } from '../metadata/conditionalWrite.js';
import { chartVersion, findChart, findChartVersion } from './chartLookup.js';
import { isDuplicateKey } from '../metadata/counters.js';
import type { EventLog } from '../metadata/eventLog.js';
import type { WorkspaceDoc } from '../domain/tenant.js';

// How charts change (docs/seatsio-behaviour.md, "Chart versions and status"), between the routes and the store:
// - a chart without events is edited in place; once events use it, edits go to a draft;
// - publish moves the draft over the published version if validation allows, discard drops it;
// - every change writes a new immutable drawing and then swaps the chart's pointer to it
//   conditionally on the chart's version, so concurrent edits never lose one another.

export function drawingTooLarge(): ApiError {
  return badRequest('INVALID_DRAWING', `The drawing exceeds the maximum size of ${MAX_DRAWING_BYTES / (1024 * 1024)} MB`);
}

export function publishFailure(chartKey: string, result: { errors: ChartValidator[]; warnings: ChartValidator[] }): ApiError {
  const warnings =
    result.warnings.length === 0
      ? []
      : [{ code: 'DRAWING_VALIDATION_FAILED' as const, message: 'Invalid draft drawing', data: { failedValidations: result.warnings } }];
  return new ApiError(400, 'DRAWING_VALIDATION_FAILED', `Failed to publish chart [key: ${chartKey}]: invalid draft drawing`, {
    data: { failedValidations: result.errors },
    warnings,
  });
}

const concurrentChange = concurrentChartChange;
const THUMBNAIL_CACHE_ENTRIES = 256;

/** Told when a chart's published version changed, so its events see the new objects. */
export type PublishedChartListener = (chartId: number) => Promise<void>;

export class ChartService {
  /** Thumbnails by drawing id: a drawing id names one version forever, so one rendering stays right. */
  private readonly thumbnails = new Lru<string, Promise<Buffer>>(THUMBNAIL_CACHE_ENTRIES);

  constructor(
    private readonly charts: Charts,
    private readonly events: Events,
    private readonly indexes: ObjectIndexes,
    private readonly publishedChanged: PublishedChartListener,
    private readonly log: EventLog,
  ) {}

  find(workspace: WorkspaceDoc, key: string): Promise<ChartDoc> {
    return findChart(this.charts, workspace, key);
  }

  /** The chart and one of its versions; 404 when the chart or (for the draft) the version is missing. */
  findVersion(workspace: WorkspaceDoc, key: string, which: VersionName): Promise<{ doc: ChartDoc; version: ChartVersion }> {
    return findChartVersion(this.charts, workspace, key, which);
  }

  version(doc: ChartDoc, which: VersionName): ChartVersion {
    return chartVersion(doc, which);
  }

  /** The drawing text of a version (404 if the chart or that version is missing). */
  drawingText(workspace: WorkspaceDoc, key: string, which: VersionName): Promise<{ doc: ChartDoc; version: ChartVersion; json: string }> {
    return this.read(workspace, key, (doc) => this.version(doc, which));
  }

  /**
   * Reads the chart and the drawing of the version `pick` chooses, consistently: a
   * concurrent change may delete the drawing the chart pointed at when we read it, so
   * then read the chart again.
   */
  private async read(
    workspace: WorkspaceDoc,
    key: string,
    pick: (doc: ChartDoc) => ChartVersion,
  ): Promise<{ doc: ChartDoc; version: ChartVersion; json: string }> {
    for (let attempt = 0; ; attempt++) {
      const doc = await this.find(workspace, key);
      const version = pick(doc);
      const json = await this.charts.drawingJson(version.drawingId);
      if (json !== null) return { doc, version, json };
      if (attempt >= 5) throw concurrentChange(key);
    }
  }

  /**
   * The PNG thumbnail of a version, rendered once per process. The drawing is parsed for the
   * rendering and dropped: a parsed 100,000-seat drawing takes many times its size in heap.
   * 409 if a concurrent change replaced the version meanwhile (its drawing is deleted then).
   */
  thumbnail(key: string, version: ChartVersion): Promise<Buffer> {
    return memoize(this.thumbnails, version.drawingId, async () => {
      const json = await this.charts.drawingJson(version.drawingId);
      if (json === null) throw concurrentChange(key);
      return renderThumbnail(JSON.parse(json) as Drawing);
    });
  }

  /** The categories of a version, from its object index (built for the sales flow anyway). */
  async categories(key: string, version: ChartVersion): Promise<IndexedCategory[]> {
    return (await this.indexes.of(key, version)).categories;
  }

  async create(workspaceId: number, key: string, drawing: Drawing, tags: string[] = []): Promise<ChartDoc> {
    const taken = () => new ApiError(409, 'CHART_ALREADY_EXISTS', `A chart with key ${key} already exists in this workspace`);
    if (await this.charts.findByKey(workspaceId, key)) throw taken();
    const published = await this.storeVersion(drawing);
    let doc: ChartDoc;
    try {
      doc = await this.charts.create({
        workspaceId,
        key,
        name: published.name,
        tags,
        archived: false,
        published,
        draft: null,
        hasEvents: false,
      });
    } catch (error) {
      await this.charts.deleteDrawings([published.drawingId]);
      // The unique index on (workspace, key) decides between concurrent creates of one key.
      throw isDuplicateKey(error) ? taken() : error;
    }
    await this.log.record(workspaceId, 'chart.created', key);
    return doc;
  }

  /**
   * Edits the drawing: the draft if there is one, else the published version in place when
   * no event uses the chart or the company turned draft drawings off (`drafts` false: its
   * events sell the edited drawing at once), else a new draft made from the published version.
   * An edit made in place is a publication, and the event log says so, as seats.io's does.
   */
  async editDrawing(workspace: WorkspaceDoc, key: string, edit: (drawing: Drawing) => void, drafts = true): Promise<ChartDoc> {
    let inPlace = false;
    const edited = await untilWritten(`Chart ${key}`, async () => {
      const read = await this.read(workspace, key, (doc) => doc.draft ?? doc.published);
      const { doc } = read;
      // A fresh parse, not the shared cached one: this copy gets changed.
      const drawing = JSON.parse(read.json) as Drawing;
      edit(drawing);
      const version = await this.storeVersion(drawing);
      inPlace = !doc.draft && !(doc.hasEvents && drafts);
      if (doc.draft) return this.swap(doc, { draft: version }, [version.drawingId], [doc.draft.drawingId]);
      if (!inPlace) return this.swap(doc, { draft: version }, [version.drawingId], []);
      return this.swap(doc, { published: version, name: version.name }, [version.drawingId], [doc.published.drawingId]);
    });
    if (inPlace) await this.log.record(workspace._id, 'chart.published', key);
    return edited;
  }

  /** Changes fields of the chart record (tags, archived) with the same conditional write. */
  change(workspace: WorkspaceDoc, key: string, decide: (doc: ChartDoc) => ChartChange): Promise<ChartDoc> {
    return untilWritten(`Chart ${key}`, async () => {
      const doc = await this.find(workspace, key);
      return this.swap(doc, decide(doc), [], []);
    });
  }

  async publish(workspace: WorkspaceDoc, key: string, levels: Record<ChartValidator, ValidatorLevel>): Promise<ChartDoc> {
    const published = await untilWritten(`Chart ${key}`, async () => {
      const doc = await this.find(workspace, key);
      const draft = this.version(doc, 'draft');
      const result = classifyFailures(draft.failedValidators, levels);
      if (result.errors.length > 0) throw publishFailure(key, result);
      return this.swap(doc, { published: draft, draft: null, name: draft.name }, [], [doc.published.drawingId]);
    });
    await this.log.record(workspace._id, 'chart.published', key);
    return published;
  }

  discard(workspace: WorkspaceDoc, key: string): Promise<ChartDoc> {
    return untilWritten(`Chart ${key}`, async () => {
      const doc = await this.find(workspace, key);
      const draft = this.version(doc, 'draft');
      return this.swap(doc, { draft: null }, [], [draft.drawingId]);
    });
  }

  /** A new chart in `targetWorkspaceId` from one version of `key`, with tags; no events, no draft. */
  async copy(workspace: WorkspaceDoc, key: string, which: VersionName, targetWorkspaceId: number, nameSuffix: string): Promise<ChartDoc> {
    const { doc, version, json } = await this.drawingText(workspace, key, which);
    const drawing = JSON.parse(json) as Drawing;
    drawing.name = version.name + nameSuffix;
    return this.create(targetWorkspaceId, newKey(), drawing, [...doc.tags]);
  }

  /** The charts of a page of the workspace's list, filtered. */
  list(workspaceId: number, filter: ChartListFilter, request: PageRequest): Promise<Page<ChartDoc & { id: number }>> {
    return this.charts.list(workspaceId, filter, request);
  }

  /** Every tag used by the workspace's charts. */
  tags(workspaceId: number): Promise<string[]> {
    return this.charts.tags(workspaceId);
  }

  /** The newest `limit` events of a chart, for the chart record's `events`. */
  recentEvents(chart: ChartDoc, limit: number): Promise<EventDoc[]> {
    return this.events.listByChart(chart._id, limit);
  }

  private async storeVersion(drawing: Drawing): Promise<ChartVersion> {
    const json = JSON.stringify(drawing);
    if (Buffer.byteLength(json) > MAX_DRAWING_BYTES) throw drawingTooLarge();
    const drawingId = newKey();
    const index = buildObjectIndex(drawing);
    const version = describeVersion(drawing, drawingId, index);
    await this.charts.storeDrawing(drawingId, json);
    // Kept: the first event on a new chart would otherwise build the same index again
    // while its creator waits (bench/baselines: eventCreateMsFirst).
    this.indexes.remember(drawingId, index);
    return version;
  }

  /**
   * The conditional write every change ends with. On success the drawings it replaced are
   * deleted; on a lost race the drawings it had written are, and the caller retries.
   */
  private async swap(doc: ChartDoc, change: ChartChange, written: string[], replaced: string[]): Promise<ChartDoc | undefined> {
    if (!(await this.charts.updateIfUnchanged(doc, change))) {
      await this.charts.deleteDrawings(written);
      return undefined;
    }
    if (change.published) await this.publishedChanged(doc._id);
    await this.charts.deleteDrawings(replaced);
    return { ...doc, ...change, version: doc.version + 1 };
  }
}
