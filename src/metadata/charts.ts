import { promisify } from 'node:util';
import { gunzip as gunzipCallback, gzip as gzipCallback } from 'node:zlib';
import { Binary, type Collection, type Db, type Filter } from 'mongodb';
import type { ChartChange, ChartDoc } from '../domain/chart.js';
import type { Page, PageRequest } from '../domain/pagination.js';
import { insertWithNewId } from './counters.js';
import { setIfUnchanged } from './conditionalWrite.js';
import { containsFilter, paginate } from './paginate.js';

// Charts live in two collections:
// - `charts`: the small record listed and filtered (name, tags, status inputs) with, per
//   version, what listing needs without opening the drawing (venue type, zones, which
//   validators fail).
// - `chartDrawings`: the drawings, gzipped, one immutable document per version. A change
//   writes a new drawing document and then points the chart at it, so a drawing id names
//   one version forever: caches of indexes and thumbnails key on it and never go stale.

interface DrawingDoc {
  _id: string;
  gzipped: Binary;
  bytes: number;
  createdOn: Date;
}


export interface ChartListFilter {
  archived: boolean;
  name?: string;
  tag?: string;
}

// zlib on libuv's thread pool: compressing a multi-megabyte drawing must not stall the
// requests this process serves meanwhile.
const gzip = promisify(gzipCallback);
const gunzip = promisify(gunzipCallback);

export class Charts {
  private readonly charts: Collection<ChartDoc>;
  private readonly drawings: Collection<DrawingDoc>;

  constructor(private readonly db: Db) {
    this.charts = db.collection<ChartDoc>('charts');
    this.drawings = db.collection<DrawingDoc>('chartDrawings');
  }

  /** Inserts the chart record; the drawing of its published version must be stored first. */
  create(fields: Omit<ChartDoc, '_id' | 'createdOn' | 'version'>): Promise<ChartDoc> {
    return insertWithNewId(this.db, 'charts', async (id) => {
      const doc: ChartDoc = { _id: id, ...fields, createdOn: new Date(), version: 1 };
      await this.charts.insertOne(doc);
      return doc;
    });
  }

  findByKey(workspaceId: number, key: string): Promise<ChartDoc | null> {
    return this.charts.findOne({ workspaceId, key });
  }

  findById(id: number): Promise<ChartDoc | null> {
    return this.charts.findOne({ _id: id });
  }

  /** Applies `change` only if nobody changed the chart since `doc` was read. */
  updateIfUnchanged(doc: ChartDoc, change: ChartChange): Promise<boolean> {
    return setIfUnchanged<ChartDoc>(this.charts, doc, change);
  }

  async markUsed(chartId: number): Promise<void> {
    await this.charts.updateOne({ _id: chartId, hasEvents: false }, { $set: { hasEvents: true }, $inc: { version: 1 } });
  }

  async markUnused(chartId: number): Promise<void> {
    await this.charts.updateOne({ _id: chartId, hasEvents: true }, { $set: { hasEvents: false }, $inc: { version: 1 } });
  }

  list(workspaceId: number, filter: ChartListFilter, request: PageRequest): Promise<Page<ChartDoc & { id: number }>> {
    const query: Filter<ChartDoc> = { workspaceId, archived: filter.archived };
    if (filter.name) Object.assign(query, containsFilter(filter.name, ['name']));
    if (filter.tag !== undefined) query.tags = filter.tag;
    return paginate(this.charts, query, request, (doc) => ({ ...doc, id: doc._id }));
  }

  /** Distinct tags of the workspace's charts that are not archived. */
  async tags(workspaceId: number): Promise<string[]> {
    const docs = await this.charts.find({ workspaceId, archived: false }, { projection: { tags: 1 } }).toArray();
    return [...new Set(docs.flatMap((doc) => doc.tags))].sort();
  }

  async storeDrawing(id: string, json: string): Promise<void> {
    const raw = Buffer.from(json, 'utf8');
    await this.drawings.insertOne({ _id: id, gzipped: new Binary(await gzip(raw)), bytes: raw.length, createdOn: new Date() });
  }

  /** The drawing's JSON text, or null if it was deleted (a version replaced meanwhile). */
  async drawingJson(id: string): Promise<string | null> {
    const doc = await this.drawings.findOne({ _id: id });
    return doc ? (await gunzip(doc.gzipped.buffer)).toString('utf8') : null;
  }

  async deleteDrawings(ids: string[]): Promise<void> {
    if (ids.length > 0) await this.drawings.deleteMany({ _id: { $in: ids } });
  }
}
