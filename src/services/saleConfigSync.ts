import type { EventDoc } from '../domain/event.js';
import { ApiError } from '../domain/errors.js';
import { saleConfigFields } from '../domain/eventObjectRules.js';
import type { ObjectIndex } from '../domain/objectIndex.js';
import { eventsOf, familyOf, heldBackByEvents, type SeasonFamily } from '../domain/season.js';
import { topIdOf } from '../inventory/eventKeys.js';
import type { EventConfigStore } from '../inventory/eventConfigStore.js';
import type { Charts } from '../metadata/charts.js';
import type { Events } from '../metadata/events.js';
import type { ObjectIndexes } from './objectIndexes.js';

// Keeps what the sales flow checks of an event's configuration (its channel and for-sale
// fields, saleConfigFields) in Redis in step with the event in MongoDB: after an event
// changes, and after its chart's published version changes. Only events that have channels
// or a for-sale config have these fields at all.

/** Rewrites of the sale config chasing concurrent changes before giving up (each is a newer version). */
const MAX_SALE_CONFIG_WRITES = 20;

/** Seasons always have fields: what their events hold back (fieldsOf). */
export const hasSaleConfig = (event: EventDoc) =>
  event.channels.length > 0 || event.forSaleConfig !== null || event.season?.role === 'top' || event.season?.role === 'partial';

export class SaleConfigSync {
  constructor(
    private readonly events: Events,
    private readonly charts: Charts,
    private readonly indexes: ObjectIndexes,
    private readonly store: EventConfigStore,
  ) {}

  /**
   * Writes the event's channel and for-sale fields to Redis. Two changes finishing in the
   * other order than they were written could leave the older fields; so after writing, read
   * the event again and write once more if it moved on (the last writer always checks last).
   */
  async sync(event: EventDoc, index: ObjectIndex, family?: SeasonFamily): Promise<void> {
    let current = event;
    for (let i = 0; i < MAX_SALE_CONFIG_WRITES; i++) {
      await this.store.writeSaleConfig(current, await this.fieldsOf(current, index, family));
      const stored = await this.events.findById(current._id);
      if (!stored) {
        // Deleted meanwhile: take back what we just wrote.
        await this.store.deleteInventory(current);
        return;
      }
      if (stored.version === current.version) return;
      current = stored;
    }
    throw new ApiError(409, 'CONCURRENT_MODIFICATION', `Event ${event.key} is being changed by other requests; try again`);
  }

  /**
   * After a change to a season's make-up or to one of its events' sale config: the season
   * and its partial seasons are rewritten, for what their events hold back (`e:` fields).
   */
  async seasonChanged(unit: EventDoc, index: ObjectIndex): Promise<void> {
    const topId = topIdOf(unit);
    if (topId === undefined) return;
    const family = familyOf(await this.events.seasonFamily(topId));
    for (const season of [family.top, ...family.partials]) await this.sync(season, index, family);
  }

  /**
   * A unit's own fields (saleConfigFields) and, for a season or partial season,
   * `e:<label>` = places one of its events not in the past holds back (heldBackByEvents).
   */
  private async fieldsOf(unit: EventDoc, index: ObjectIndex, known?: SeasonFamily): Promise<Map<string, string>> {
    const fields = saleConfigFields(unit, index);
    const topId = topIdOf(unit);
    const role = unit.season?.role;
    if (topId === undefined || role === 'event') return fields;
    const family = known ?? familyOf(await this.events.seasonFamily(topId));
    const live = eventsOf(unit, family).filter((e) => !e.isInThePast);
    const capacityOf = (label: string) => {
      const object = index.byLabel.get(label);
      return object?.objectType === 'generalAdmission' ? object.capacity : 1;
    };
    for (const [label, places] of heldBackByEvents(live, (e) => saleConfigFields(e, index), capacityOf)) {
      if (places > 0) fields.set(`e:${label}`, String(places));
    }
    return fields;
  }

  /**
   * After a chart's published version changed (publish of a draft): the channel and
   * for-sale fields of its events follow the new objects (for-sale categories, GA places).
   */
  async chartPublished(chartId: number): Promise<void> {
    const chart = await this.charts.findById(chartId);
    if (!chart) return;
    for (const event of await this.events.onChart(chartId)) {
      if (!hasSaleConfig(event)) continue;
      await this.sync(event, await this.indexes.of(chart.key, chart.published));
    }
  }
}
