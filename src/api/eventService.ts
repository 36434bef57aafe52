import { classifyFailures } from '../domain/chartValidation.js';
import type { ChartValidator, ValidatorLevel } from '../domain/companySettings.js';
import { ApiError, badRequest } from '../domain/errors.js';
import { saleConfigFields } from '../domain/eventObjects.js';
import type { ObjectIndex } from '../domain/objectIndex.js';
import { deleteInventory, writeSaleConfig } from '../inventory/eventConfig.js';
import type { ChartDoc } from '../metadata/charts.js';
import { untilWritten } from '../metadata/conditionalWrite.js';
import { isDuplicateKey } from '../metadata/counters.js';
import type { EventChange, EventDoc, NewEvent } from '../metadata/events.js';
import type { WorkspaceDoc } from '../metadata/workspaces.js';
import { usedBucketsFor } from '../inventory/usage.js';
import type { ChartService } from './chartService.js';
import type { ApiDeps } from './deps.js';
import { eventNotFound, type EventCatalog } from './eventCatalog.js';

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
/** Rewrites of the sale config chasing concurrent changes before giving up (each is a newer version). */
const MAX_SALE_CONFIG_WRITES = 20;

const hasSaleConfig = (event: EventDoc) => event.channels.length > 0 || event.forSaleConfig !== null;

export const eventKeyTaken = (key: string) => badRequest('EVENT_KEY_ALREADY_EXISTS', `An event with key ${key} already exists in this workspace`);

export const eventInThePast = (key: string) =>
  badRequest('EVENT_IN_THE_PAST', `Event ${key} is in the past and cannot be changed`);

export class EventService {
  constructor(
    readonly deps: ApiDeps,
    readonly charts: ChartService,
    private readonly catalog: EventCatalog,
  ) {}

  /** The event as stored now (admin routes read MongoDB, not the catalog); 404 EVENT_NOT_FOUND. */
  async find(workspace: WorkspaceDoc, key: string): Promise<EventDoc> {
    const event = await this.deps.repos.events.findByKey(workspace._id, key);
    if (!event) throw eventNotFound(key, workspace);
    return event;
  }

  async chartOf(event: EventDoc): Promise<EventChart> {
    const chart = await this.deps.repos.charts.findById(event.chartId);
    // Charts are never deleted; a missing one is a broken store, not a client error.
    if (!chart) throw new Error(`chart ${event.chartId} of event ${event._id} is missing`);
    return { chart, index: await this.charts.index(chart.key, chart.published) };
  }

  /** The chart and its index, for a new event: 404 if unknown, 400 if its validation has errors. */
  async chartForNewEvents(workspace: WorkspaceDoc, chartKey: string, levels: Record<ChartValidator, ValidatorLevel>): Promise<EventChart> {
    const chart = await this.charts.find(workspace, chartKey);
    const { errors } = classifyFailures(chart.published.failedValidators, levels);
    if (errors.length > 0) {
      throw new ApiError(400, 'DRAWING_VALIDATION_FAILED', `Cannot create events for chart ${chartKey}: its published drawing fails validation`, {
        data: { failedValidations: errors },
      });
    }
    return { chart, index: await this.charts.index(chart.key, chart.published) };
  }

  /**
   * Inserts the events in order, all or none: if one insert fails (a key taken meanwhile)
   * the ones already inserted are deleted again. Keys were checked before, so that is rare.
   */
  async create(at: EventChart, events: NewEvent[]): Promise<EventDoc[]> {
    for (const fields of events) {
      if (await this.deps.repos.events.findByKey(fields.workspaceId, fields.key)) throw eventKeyTaken(fields.key);
    }
    const created: EventDoc[] = [];
    try {
      for (const fields of events) {
        try {
          created.push(await this.deps.repos.events.create({ ...fields, usedBuckets: usedBucketsFor(at.index.objects.length) }));
        } catch (error) {
          throw isDuplicateKey(error) ? eventKeyTaken(fields.key) : error;
        }
      }
    } catch (error) {
      for (const doc of created) await this.deps.repos.events.delete(doc._id);
      throw error;
    }
    await this.deps.repos.charts.markUsed(at.chart._id);
    for (const event of created) if (hasSaleConfig(event)) await this.syncSaleConfig(event, at.index);
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
        written = await this.deps.repos.events.update(event, change);
      } catch (error) {
        throw isDuplicateKey(error) && change.key !== undefined ? eventKeyTaken(change.key) : error;
      }
      return written && { before: event, after: written, at };
    });
    if (before !== after) {
      const touched = SALE_CONFIG_INPUTS.some((field) => before[field] !== after[field]);
      if (touched && (hasSaleConfig(before) || hasSaleConfig(after))) await this.syncSaleConfig(after, at.index);
      await this.catalog.changed(workspace._id, ...new Set([before.key, after.key]));
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

  /**
   * After a chart's published version changed (publish of a draft): the channel and
   * for-sale fields of its events follow the new objects (for-sale categories, GA places).
   */
  async chartPublished(chartId: number): Promise<void> {
    const events = await this.deps.repos.events.onChart(chartId);
    for (const event of events) {
      if (event.channels.length === 0 && !event.forSaleConfig) continue;
      await this.syncSaleConfig(event, (await this.chartOf(event)).index);
    }
  }

  async delete(workspace: WorkspaceDoc, key: string): Promise<void> {
    const event = await this.find(workspace, key);
    await this.deps.repos.events.delete(event._id);
    await deleteInventory(this.deps.redis, event);
    await this.catalog.changed(workspace._id, event.key);
  }

  private decide(event: EventDoc, at: EventChart, decide: (event: EventDoc, at: EventChart) => EventChange): EventChange {
    if (event.isInThePast) throw eventInThePast(event.key);
    return decide(event, at);
  }

  /**
   * Writes the event's channel and for-sale fields to Redis. Two changes finishing in the
   * other order than they were written could leave the older fields; so after writing, read
   * the event again and write once more if it moved on (the last writer always checks last).
   */
  private async syncSaleConfig(event: EventDoc, index: ObjectIndex): Promise<void> {
    let current = event;
    for (let i = 0; i < MAX_SALE_CONFIG_WRITES; i++) {
      await writeSaleConfig(this.deps.redis, current, saleConfigFields(current, index));
      const stored = await this.deps.repos.events.findById(current._id);
      if (!stored) {
        // Deleted meanwhile: take back what we just wrote.
        await deleteInventory(this.deps.redis, current);
        return;
      }
      if (stored.version === current.version) return;
      current = stored;
    }
    throw new ApiError(409, 'CONCURRENT_MODIFICATION', `Event ${event.key} is being changed by other requests; try again`);
  }
}
