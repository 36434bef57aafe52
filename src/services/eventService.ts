import type { ChartDoc } from '../domain/chart.js';
import { classifyFailures } from '../domain/chartValidation.js';
import type { ChartValidator, ValidatorLevel } from '../domain/companySettings.js';
import { ApiError, badRequest } from '../domain/errors.js';
import type { EventChange, EventDoc, NewEvent } from '../domain/event.js';
import type { RateLimitInfo } from '../domain/forSaleLimit.js';
import type { ObjectIndex } from '../domain/objectIndex.js';
import type { Page, PageRequest } from '../domain/pagination.js';
import { eventInThePast } from '../domain/season.js';
import { usedBucketsFor } from '../domain/usedBuckets.js';
import type { EventConfigStore } from '../inventory/eventConfigStore.js';
import type { Charts } from '../metadata/charts.js';
import { untilWritten } from '../metadata/conditionalWrite.js';
import { isDuplicateKey } from '../metadata/counters.js';
import type { Events } from '../metadata/events.js';
import type { EventLog } from '../metadata/eventLog.js';
import type { WorkspaceDoc } from '../domain/tenant.js';
import type { ChartService } from './chartService.js';
import { eventNotFound, type EventCatalog } from './eventCatalog.js';
import type { ObjectIndexes } from './objectIndexes.js';
import { hasSaleConfig, type SaleConfigSync } from './saleConfigSync.js';

// How events change, between the admin routes and the stores:
// - MongoDB holds the event; every change is a conditional write on its version, retried
//   on a concurrent change, so concurrent channel edits never lose one another;
// - Redis holds what the sales flow checks (channel and for-sale fields, saleConfigFields),
//   rewritten after a change that touches it, and only for events that have any: an event
//   without channels or for-sale config has no Redis keys at all;
// - the event catalog of every process drops the event after each change.

/** The chart an event uses, with the object index of its published version. */
export interface EventChart {
  chart: ChartDoc;
  index: ObjectIndex;
}

/** Fields saleConfigFields reads: a change of one of them means rewriting the Redis fields. */
const SALE_CONFIG_INPUTS = ['channels', 'forSaleConfig', 'objectCategories', 'categories'] as const;
export const eventKeyTaken = (key: string) => badRequest('EVENT_KEY_ALREADY_EXISTS', `An event with key ${key} already exists in this workspace`);


export class EventService {
  constructor(
    private readonly events: Events,
    private readonly charts: Charts,
    private readonly chartService: ChartService,
    private readonly indexes: ObjectIndexes,
    private readonly catalog: EventCatalog,
    private readonly saleConfig: SaleConfigSync,
    private readonly configStore: EventConfigStore,
    private readonly log: EventLog,
  ) {}

  /** The event as stored now (admin routes read MongoDB, not the catalog); 404 EVENT_NOT_FOUND. */
  async find(workspace: WorkspaceDoc, key: string): Promise<EventDoc> {
    const event = await this.events.findByKey(workspace._id, key);
    if (!event) throw eventNotFound(key, workspace);
    return event;
  }

  async chartOf(event: EventDoc): Promise<EventChart> {
    const chart = await this.charts.findById(event.chartId);
    // Charts are never deleted; a missing one is a broken store, not a client error.
    if (!chart) throw new Error(`chart ${event.chartId} of event ${event._id} is missing`);
    return { chart, index: await this.indexes.of(chart.key, chart.published) };
  }

  /** The chart and its index, for a new event: 404 if unknown, 400 if its validation has errors. */
  async chartForNewEvents(workspace: WorkspaceDoc, chartKey: string, levels: Record<ChartValidator, ValidatorLevel>): Promise<EventChart> {
    const chart = await this.chartService.find(workspace, chartKey);
    const { errors } = classifyFailures(chart.published.failedValidators, levels);
    if (errors.length > 0) {
      throw new ApiError(400, 'DRAWING_VALIDATION_FAILED', `Cannot create events for chart ${chartKey}: its published drawing fails validation`, {
        data: { failedValidations: errors },
      });
    }
    return { chart, index: await this.indexes.of(chart.key, chart.published) };
  }

  /**
   * Inserts the events in order, all or none: if one insert fails (a key taken meanwhile)
   * the ones already inserted are deleted again. Keys were checked before, so that is rare.
   * A single event's key is not looked up first: the unique index on the workspace and key
   * refuses its insert just the same, and creating one event is a round trip shorter.
   */
  async create(at: EventChart, events: NewEvent[], tag?: string): Promise<EventDoc[]> {
    if (events.length > 1) {
      for (const fields of events) {
        if (await this.events.findByKey(fields.workspaceId, fields.key)) throw eventKeyTaken(fields.key);
      }
    }
    const created: EventDoc[] = [];
    try {
      for (const fields of events) {
        try {
          created.push(await this.events.create({ ...fields, usedBuckets: usedBucketsFor(at.index.objects.length) }, tag));
        } catch (error) {
          throw isDuplicateKey(error) ? eventKeyTaken(fields.key) : error;
        }
      }
    } catch (error) {
      for (const doc of created) await this.events.delete(doc._id);
      throw error;
    }
    // The chart's mark of use and the events' own writes do not depend on each other: they are
    // sent together (the log's entries stay in the events' order).
    const ownWrites = async () => {
      for (const event of created) if (hasSaleConfig(event)) await this.saleConfig.sync(event, at.index);
      for (const event of created) await this.log.record(event.workspaceId, 'event.created', event.key);
    };
    await Promise.all([this.charts.markUsed(at.chart._id), ownWrites()]);
    return created;
  }

  /**
   * Changes the event with what `decide` returns for its current state, until the write
   * wins over concurrent ones. A past event refuses every change. `decide` may throw a 4xx.
   */
  async change(workspace: WorkspaceDoc, key: string, decide: (event: EventDoc, at: EventChart) => EventChange): Promise<EventDoc> {
    const { before, after, at } = await untilWritten(`Event ${key}`, async () => {
      const event = await this.find(workspace, key);
      const at = await this.chartOf(event);
      const change = this.decide(event, at, decide);
      if (Object.keys(change).length === 0) return { before: event, after: event, at };
      let written: EventDoc | undefined;
      try {
        written = await this.events.update(event, change);
      } catch (error) {
        throw isDuplicateKey(error) && change.key !== undefined ? eventKeyTaken(change.key) : error;
      }
      return written && { before: event, after: written, at };
    });
    if (before !== after) {
      const touched = SALE_CONFIG_INPUTS.some((field) => before[field] !== after[field]);
      if (touched && (hasSaleConfig(before) || hasSaleConfig(after))) await this.saleConfig.sync(after, at.index);
      // What an event holds back counts on its season (SaleConfigSync.seasonChanged), until it is in the past.
      if (after.season?.role === 'event' && (touched || before.isInThePast !== after.isInThePast)) await this.saleConfig.seasonChanged(after, at.index);
      await this.catalog.changed(workspace._id, ...new Set([before.key, after.key]));
      // A season's units show its channels and for-sale config (docs/seasons.md): their cached copies go too.
      if (after.season?.role === 'top' && touched) {
        await this.catalog.changed(workspace._id, ...(await this.events.seasonFamily(after._id)).map((unit) => unit.key).filter((k) => k !== after.key));
      }
      await this.log.record(workspace._id, 'event.updated', after.key);
    }
    return after;
  }

  /**
   * What `decide` would change now, without writing: for routes that must validate the
   * input before doing something that cannot be undone (counting a rate-limited call).
   */
  async preview(workspace: WorkspaceDoc, key: string, decide: (event: EventDoc, at: EventChart) => EventChange): Promise<EventDoc> {
    const event = await this.find(workspace, key);
    this.decide(event, await this.chartOf(event), decide);
    return event;
  }

  /** A page of the workspace's events. */
  list(workspace: WorkspaceDoc, request: PageRequest): Promise<Page<EventDoc & { id: number }>> {
    return this.events.list(workspace._id, request, (doc) => ({ ...doc, id: doc._id }));
  }

  /** Counts one for-sale change of the event today (the daily limit); a `limited` call refused by it is not counted. */
  countForSaleEdit(event: EventDoc, now: number, limited: boolean): Promise<RateLimitInfo> {
    return this.configStore.countForSaleEdit(event, now, limited);
  }

  /** Today's for-sale changes of the event, without counting one. */
  forSaleEditsLeft(event: EventDoc, now: number): Promise<RateLimitInfo> {
    return this.configStore.forSaleEditsLeft(event, now);
  }

  /** Deletes the event with its inventory (seasons: SeasonService.delete, which calls this per unit). */
  async deleteDoc(event: EventDoc): Promise<void> {
    await this.events.delete(event._id);
    await this.configStore.deleteInventory(event);
    await this.catalog.changed(event.workspaceId, event.key);
    await this.chartUseEnded(event.chartId);
    await this.log.record(event.workspaceId, 'event.deleted', event.key);
  }

  /**
   * Moves the event to a new copy of its chart's published version: a new chart key, the
   * same drawing. Its inventory is keyed by the event, not the chart, so bookings, holds and
   * its settings stay as they are; the old chart may become NOT_USED.
   */
  async moveToNewChartCopy(workspace: WorkspaceDoc, key: string): Promise<EventDoc> {
    const event = await this.find(workspace, key);
    if (event.isInThePast) throw eventInThePast(event.key);
    const copy = await this.chartService.copy(workspace, event.chartKey, 'published', workspace._id, ' (copy)');
    await this.charts.markUsed(copy._id);
    const moved = await untilWritten(`Event ${key}`, async () => this.events.moveToChart(await this.find(workspace, key), copy._id, copy.key));
    await this.catalog.changed(workspace._id, moved.key);
    await this.chartUseEnded(event.chartId);
    return moved;
  }

  /**
   * A chart whose last event is gone is NOT_USED again, and edited in place
   * (docs/seatsio-behaviour.md, "Chart versions and status"). An event created meanwhile
   * marked the chart used before this unmarked it: the second look marks it again.
   */
  private async chartUseEnded(chartId: number): Promise<void> {
    if (await this.events.anyOnChart(chartId)) return;
    await this.charts.markUnused(chartId);
    if (await this.events.anyOnChart(chartId)) await this.charts.markUsed(chartId);
  }

  private decide(event: EventDoc, at: EventChart, decide: (event: EventDoc, at: EventChart) => EventChange): EventChange {
    if (event.isInThePast) throw eventInThePast(event.key);
    return decide(event, at);
  }
}
