import { badRequest, notFound } from '../domain/errors.js';
import type { EventChange, EventDoc, NewEvent, SeasonLink } from '../domain/event.js';
import { newKey } from '../domain/keys.js';
import { eventIdsOf, familyOf, unitsOf, type SeasonFamily } from '../domain/season.js';
import { untilWritten } from '../metadata/conditionalWrite.js';
import type { Events } from '../metadata/events.js';
import type { WorkspaceDoc } from '../domain/tenant.js';
import type { EventCatalog } from './eventCatalog.js';
import type { EventChart, EventService } from './eventService.js';
import type { SaleConfigSync } from './saleConfigSync.js';
import type { SeasonStore } from '../inventory/seasonStore.js';

// Seasons and partial seasons (docs/seasons.md): creating them with their events, adding
// events later, grouping events into partial seasons, deleting. Every unit of a season is
// a document of the events collection with a season link, and shares the top-level
// season's hash tag, so one script call can check a booking against all of them. After
// any change to a season's make-up, every process drops the whole family from its event
// catalog: what a unit's bookings are checked against may have changed.

/** What a season's units take from it. */
const SEASON_SETTINGS = ['tableBookingConfig', 'objectCategories', 'categories'] as const;

/** Events one request may add to a season (create, create-events). */
export const MAX_EVENTS_PER_SEASON_REQUEST = 500;

export const seasonNotFound = (key: string, workspace: WorkspaceDoc) =>
  notFound('SEASON_NOT_FOUND', `Season not found: ${key} was not found in workspace ${workspace.key}`);

const partialNotFound = (key: string, top: string) =>
  notFound('PARTIAL_SEASON_NOT_FOUND', `Partial season not found: ${key} is not a partial season of ${top}`);

export class SeasonService {
  constructor(
    private readonly events: Events,
    private readonly eventService: EventService,
    private readonly catalog: EventCatalog,
    private readonly saleConfig: SaleConfigSync,
    private readonly seasonStore: SeasonStore,
  ) {}

  /** The season a unit belongs to, or null for an event outside any season. */
  async familyOf(doc: EventDoc): Promise<SeasonFamily | null> {
    if (!doc.season) return null;
    const topId = doc.season.role === 'top' ? doc._id : doc.season.topId;
    return familyOf(await this.events.seasonFamily(topId));
  }

  /** A top-level season by key; 404 SEASON_NOT_FOUND for anything else. */
  async findTop(workspace: WorkspaceDoc, key: string): Promise<EventDoc> {
    const doc = await this.events.findByKey(workspace._id, key);
    if (doc?.season?.role !== 'top') throw seasonNotFound(key, workspace);
    return doc;
  }

  /** Creates the season, then its events, all or none. */
  async create(at: EventChart, season: NewEvent, forSalePropagated: boolean, eventKeys: string[]): Promise<EventDoc> {
    const [top] = await this.eventService.create(at, [{ ...season, season: { role: 'top', forSalePropagated } }]);
    try {
      await this.eventService.create(at, eventKeys.map((key) => this.unitFields(top!, key, { role: 'event', topId: top!._id })), top!.tag);
    } catch (error) {
      await this.eventService.deleteDoc(top!);
      throw error;
    }
    return top!;
  }

  /** Adds new events to a top-level season; they see what the season booked at once. */
  async createEvents(workspace: WorkspaceDoc, seasonKey: string, eventKeys: string[]): Promise<EventDoc[]> {
    const top = await this.findTop(workspace, seasonKey);
    const at = await this.eventService.chartOf(top);
    const created = await this.eventService.create(at, eventKeys.map((key) => this.unitFields(top, key, { role: 'event', topId: top._id })), top.tag);
    await this.familyChanged(workspace, top);
    return created;
  }

  /** A partial season of `topKey` made of some of its events. */
  async createPartial(workspace: WorkspaceDoc, topKey: string, key: string | undefined, name: string | null, eventKeys: string[]): Promise<EventDoc> {
    const top = await this.findTop(workspace, topKey);
    const family = (await this.familyOf(top))!;
    const eventIds = this.eventsOfSeason(family, eventKeys);
    const at = await this.eventService.chartOf(top);
    const [partial] = await this.eventService.create(at, [{ ...this.unitFields(top, key ?? newKey(), { role: 'partial', topId: top._id, eventIds }), name }], top.tag);
    await this.familyChanged(workspace, top);
    return partial!;
  }

  /** Adds events of the season to one of its partial seasons. */
  addToPartial(workspace: WorkspaceDoc, topKey: string, partialKey: string, eventKeys: string[]): Promise<EventDoc> {
    return this.relinkPartial(workspace, topKey, partialKey, (ids, family) => [...new Set([...ids, ...this.eventsOfSeason(family, eventKeys)])]);
  }

  /** Takes one event out of a partial season (it stays in the season). */
  removeFromPartial(workspace: WorkspaceDoc, topKey: string, partialKey: string, eventKey: string): Promise<EventDoc> {
    return this.relinkPartial(workspace, topKey, partialKey, (ids, family) => {
      const [id] = this.eventsOfSeason(family, [eventKey]);
      if (!ids.includes(id!)) throw badRequest('EVENT_NOT_IN_PARTIAL_SEASON', `Event ${eventKey} is not in partial season ${partialKey}`);
      return ids.filter((other) => other !== id);
    });
  }

  /**
   * Deletes an event, a partial season or a season. A top-level season goes with its
   * partial seasons and its events (docs/seasons.md, "Deleting"); an event leaves the
   * partial seasons it was in.
   */
  async delete(workspace: WorkspaceDoc, doc: EventDoc): Promise<void> {
    const family = await this.familyOf(doc);
    if (!family) return this.eventService.deleteDoc(doc);
    if (doc.season?.role === 'top') {
      for (const unit of [...family.events, ...family.partials, family.top]) await this.eventService.deleteDoc(unit);
    } else {
      if (doc.season?.role === 'event') {
        for (const partial of family.partials.filter((p) => eventIdsOf(p).includes(doc._id))) {
          await this.relinkPartial(workspace, family.top.key, partial.key, (ids) => ids.filter((id) => id !== doc._id));
        }
      }
      await this.seasonStore.forget(doc);
      await this.eventService.deleteDoc(doc);
    }
    if (doc.season?.role === 'top') await this.catalog.changed(workspace._id, ...unitsOf(family).map((d) => d.key));
    else await this.familyChanged(workspace, family.top);
  }

  /**
   * Updates an event, season or partial season (the event update, plus `forSalePropagated`
   * on a top-level season). A season's table booking and categories carry over to its
   * units not in the past, so a seat means the same thing in all of them.
   */
  async change(
    workspace: WorkspaceDoc,
    key: string,
    forSalePropagated: boolean | undefined,
    decide: (event: EventDoc, at: EventChart) => EventChange,
  ): Promise<EventDoc> {
    let after = await this.eventService.change(workspace, key, (event, at) => {
      if (forSalePropagated !== undefined && event.season?.role !== 'top') {
        throw badRequest('NOT_A_TOP_LEVEL_SEASON', `forSalePropagated applies to top-level seasons; ${key} is not one`);
      }
      const change = decide(event, at);
      if (change.isInThePast && (event.season?.role === 'top' || event.season?.role === 'partial')) {
        throw badRequest('SEASON_CANNOT_BE_IN_THE_PAST', `${key} is a season; only events are marked as in the past`);
      }
      return change;
    });
    if (!after.season) return after;
    // A past event holds nothing back from its season any more (docs/seasons.md, "The past").
    if (after.season.role === 'event' && after.isInThePast) await this.seasonStore.forget(after);
    if (forSalePropagated !== undefined) {
      after = await untilWritten(`Season ${after.key}`, async () => {
        const current = await this.eventService.find(workspace, after.key);
        return this.events.relink(current, { role: 'top', forSalePropagated });
      });
    }
    if (after.season?.role === 'top') {
      const family = (await this.familyOf(after))!;
      const settings = { tableBookingConfig: after.tableBookingConfig, objectCategories: after.objectCategories, categories: after.categories };
      for (const unit of [...family.partials, ...family.events]) {
        if (unit.isInThePast || SEASON_SETTINGS.every((f) => JSON.stringify(unit[f]) === JSON.stringify(after[f]))) continue;
        await this.eventService.change(workspace, unit.key, () => settings);
      }
    }
    await this.familyChanged(workspace, after);
    return after;
  }

  /** Every process forgets every unit of the season (see the top of this file). */
  async familyChanged(workspace: WorkspaceDoc, anyUnit: EventDoc): Promise<void> {
    const family = await this.familyOf(anyUnit);
    if (!family) return;
    await this.saleConfig.seasonChanged(family.top, (await this.eventService.chartOf(family.top)).index);
    // Before the caches go: a status change planned on the old make-up is refused and replanned.
    await this.seasonStore.bump(family.top);
    await this.catalog.changed(workspace._id, ...unitsOf(family).map((d) => d.key));
  }

  private async relinkPartial(
    workspace: WorkspaceDoc,
    topKey: string,
    partialKey: string,
    ids: (current: number[], family: SeasonFamily) => number[],
  ): Promise<EventDoc> {
    const top = await this.findTop(workspace, topKey);
    const partial = await untilWritten(`Partial season ${partialKey}`, async () => {
      const family = (await this.familyOf(top))!;
      const current = family.partials.find((p) => p.key === partialKey);
      if (!current) throw partialNotFound(partialKey, topKey);
      return this.events.relink(current, { role: 'partial', topId: top._id, eventIds: ids(eventIdsOf(current), family) });
    });
    await this.familyChanged(workspace, top);
    return partial;
  }

  /** The ids of the season's events with these keys; 400 for a key that is not one of them. */
  private eventsOfSeason(family: SeasonFamily, eventKeys: string[]): number[] {
    return eventKeys.map((key) => {
      const event = family.events.find((e) => e.key === key);
      if (!event) throw badRequest('EVENT_NOT_IN_SEASON', `Event ${key} is not an event of season ${family.top.key}`);
      return event._id;
    });
  }

  /** A new unit of the season: the season's table booking and categories, nothing of its own yet. */
  private unitFields(top: EventDoc, key: string, season: SeasonLink): NewEvent {
    return {
      workspaceId: top.workspaceId,
      chartId: top.chartId,
      chartKey: top.chartKey,
      key,
      name: null,
      date: null,
      tableBookingConfig: top.tableBookingConfig,
      objectCategories: top.objectCategories,
      categories: top.categories,
      channels: [],
      forSaleConfig: null,
      isInThePast: false,
      season,
    };
  }
}
