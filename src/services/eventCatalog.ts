import { notFound } from '../domain/errors.js';
import { Lru } from '../util/lru.js';
import type { ObjectIndex } from '../domain/objectIndex.js';
import { eventKeys, topIdOf, type EventKeys } from '../inventory/eventKeys.js';
import { familyOf, scopeOf, type SeasonScope } from '../domain/season.js';
import type { ChartDoc } from '../domain/chart.js';
import type { EventDoc } from '../domain/event.js';
import type { InvalidationBus } from '../metadata/invalidationBus.js';
import type { Repositories } from '../metadata/repositories.js';
import type { WorkspaceDoc } from '../domain/tenant.js';
import type { ObjectIndexes } from './objectIndexes.js';
import type { SeasonStore } from '../inventory/seasonStore.js';

// Events as the sales flow needs them, from memory: the event record, its chart and the
// object index of the chart's published version. Nothing on the priority lane waits for
// MongoDB once an event was seen. Admin routes that change an event call `changed`, and
// publishing a chart calls `chartChanged`; both drop the entry here and tell every other
// process through the invalidation bus.

/**
 * What the catalog keeps of an event's chart: the fields that change only with its published
 * version (a publish drops them, `chartChanged`). Its name, tags and other fields are read
 * from the chart record where they are needed, not from here.
 */
export type CatalogChart = Pick<ChartDoc, '_id' | 'key' | 'published'>;

export interface LoadedEvent {
  event: EventDoc;
  chart: CatalogChart;
  index: ObjectIndex;
  keys: EventKeys;
  /** For a unit of a season: what its status changes are checked against (SeasonService drops it on any change to the season). */
  season?: SeasonScope;
}

const EVENT_TOPIC = 'event';
const CHART_TOPIC = 'chart';
/** Events kept in memory; each is small, the indexes are shared per chart version (ObjectIndexes). */
const MAX_EVENTS = 50_000;
/** Charts kept in memory for their events' loads (a few fields each). */
const MAX_CHARTS = 10_000;

const entryKey = (workspaceId: number, key: string) => `${workspaceId}\u0000${key}`;

export const eventNotFound = (key: string, workspace: WorkspaceDoc) =>
  notFound('EVENT_NOT_FOUND', `Event not found: ${key} was not found in workspace ${workspace.key}`);

export class EventCatalog {
  private readonly loaded = new Lru<string, Promise<LoadedEvent | null>>(MAX_EVENTS);
  /** What each entry of `loaded` resolved to, once it has (for peek). */
  private readonly settled = new WeakMap<Promise<LoadedEvent | null>, LoadedEvent>();
  /** The last event peek was asked for, and its entry's key. */
  private lastPeeked = { workspaceId: -1, key: '', id: '' };
  /** chart id -> cache entries of its events, so a chart change drops them at once. */
  private readonly byChart = new Map<number, Set<string>>();
  /**
   * Charts by id, shared by the loads of their events: an event's first load reads its event
   * record alone, not the chart's too, once another event of the chart was loaded (a season's
   * events, a tour's dates on one venue). Dropped with the chart's events on a publish.
   */
  private readonly charts = new Lru<number, Promise<CatalogChart | null>>(MAX_CHARTS);

  constructor(
    private readonly repos: Repositories,
    private readonly indexes: ObjectIndexes,
    private readonly bus: InvalidationBus,
    private readonly seasonStore: SeasonStore,
  ) {
    bus.on(EVENT_TOPIC, (m) => this.loaded.delete(String(m.id)), () => this.clear());
    bus.on(CHART_TOPIC, (m) => this.dropChart(Number(m.id)), () => this.clear());
  }

  /**
   * The event when it is loaded already, without waiting for a turn of the event loop (the
   * priority lane asks on every request); undefined when only `get` can tell.
   */
  peek(workspace: WorkspaceDoc, key: string): LoadedEvent | undefined {
    // The entry's key of the last event asked for is kept: in an on-sale one event is asked
    // for again and again, and its key would be a new string each time.
    if (key !== this.lastPeeked.key || workspace._id !== this.lastPeeked.workspaceId) this.lastPeeked = { workspaceId: workspace._id, key, id: entryKey(workspace._id, key) };
    const entry = this.loaded.get(this.lastPeeked.id);
    return entry && this.settled.get(entry);
  }

  /** The event with its chart and index; 404 EVENT_NOT_FOUND if the workspace has no such event. */
  async get(workspace: WorkspaceDoc, key: string): Promise<LoadedEvent> {
    const id = entryKey(workspace._id, key);
    let entry = this.loaded.get(id);
    if (!entry) {
      entry = this.load(workspace._id, key);
      this.loaded.set(id, entry);
      // Unknown keys are not remembered: the next create must see its event at once.
      entry.then(
        (found) => {
          if (this.loaded.get(id) !== entry) return;
          if (found === null) return void this.loaded.delete(id);
          this.settled.set(entry!, found);
          this.byChart.set(found.chart._id, (this.byChart.get(found.chart._id) ?? new Set()).add(id));
        },
        () => this.loaded.get(id) === entry && this.loaded.delete(id),
      );
    }
    const found = await entry;
    if (!found) throw eventNotFound(key, workspace);
    return found;
  }

  /** The event read from the database now, not from this cache (the status stream, after its season's make-up changed); null once it is gone. */
  async reload(workspaceId: number, key: string): Promise<LoadedEvent | null> {
    this.loaded.delete(entryKey(workspaceId, key));
    return this.load(workspaceId, key);
  }

  /** Called by the admin route that changed or deleted an event (pass every key it had). */
  async changed(workspaceId: number, ...keys: string[]): Promise<void> {
    for (const key of keys) {
      const id = entryKey(workspaceId, key);
      this.loaded.delete(id);
      await this.bus.publish({ topic: EVENT_TOPIC, id });
    }
  }

  /** Drops entries in this process only: a status change planned on an old season make-up reloads them. */
  forget(workspaceId: number, keys: string[]): void {
    for (const key of keys) this.loaded.delete(entryKey(workspaceId, key));
  }

  /** Called when a chart's published version changed: its events see the new objects. */
  async chartChanged(chartId: number): Promise<void> {
    this.dropChart(chartId);
    await this.bus.publish({ topic: CHART_TOPIC, id: chartId });
  }

  private async load(workspaceId: number, key: string): Promise<LoadedEvent | null> {
    for (;;) {
      const event = await this.repos.events.findByKey(workspaceId, key);
      if (!event) return null;
      const chartRead = this.chartOf(event.chartId);
      const chart = await chartRead;
      if (!chart) return null;
      const topId = topIdOf(event);
      let season: SeasonScope | undefined;
      if (topId !== undefined) {
        // The version first: a make-up change after it makes the script refuse this scope.
        const version = await this.seasonStore.current(event);
        season = scopeOf(event, familyOf(await this.repos.events.seasonFamily(topId)), version);
      }
      const loaded = { event, chart, index: await this.indexes.of(chart.key, chart.published), keys: eventKeys(event), season };
      // A publish while this load waited dropped the chart's record and its events, before this
      // one was among them (`get` lists it once the load is over, with nothing to wait for in
      // between): loaded with the old version, it would be kept until its next change.
      if (this.charts.get(event.chartId) === chartRead) return loaded;
    }
  }

  /** The chart's record as the catalog keeps it; read once, and again after a publish dropped it. */
  private chartOf(chartId: number): Promise<CatalogChart | null> {
    const kept = this.charts.get(chartId);
    if (kept) return kept;
    const read = this.repos.charts.findById(chartId).then((doc) => doc && { _id: doc._id, key: doc.key, published: doc.published });
    this.charts.set(chartId, read);
    // A chart not found (or not read) is asked for again next time.
    const forget = () => this.charts.get(chartId) === read && this.charts.delete(chartId);
    read.then((doc) => doc === null && forget(), forget);
    return read;
  }

  private dropChart(chartId: number): void {
    for (const id of this.byChart.get(chartId) ?? []) this.loaded.delete(id);
    this.byChart.delete(chartId);
    this.charts.delete(chartId);
  }

  private clear(): void {
    this.loaded.clear();
    this.byChart.clear();
    this.charts.clear();
  }
}
