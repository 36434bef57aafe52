import { eventLayout } from '../domain/eventLayout.js';
import { notFound } from '../domain/errors.js';
import type { EventDoc } from '../domain/event.js';
import { chartMembersJson, describeEventObject, EventFieldsCache, objectInfoJson, type ObjectSnapshot } from '../domain/eventObjectInfo.js';
import { eventInThePast, seasonView } from '../domain/season.js';
import { bookableObjects, directRules, indexedRules, type ObjectRules } from '../domain/eventObjectRules.js';
import type { ChartObject, ObjectIndex } from '../domain/objectIndex.js';
import { objectState } from '../domain/objectStates.js';
import { extraDataText } from '../domain/statusChangeRequest.js';
import type { EventObjectStore, WholeEventState } from '../inventory/eventObjectStore.js';
import type { WorkspaceDoc } from '../domain/tenant.js';
import { EncodedBody } from '../util/encodedBody.js';
import { Lru } from '../util/lru.js';
import type { EventCatalog, LoadedEvent } from './eventCatalog.js';

// Reading and annotating the objects of an event: object info (docs/seatsio-behaviour.md,
// "Object info"), extra data, the objects of an order, and every object at once for the
// reports (src/services/reportService.ts). Not the
// sales flow: statuses change only through StatusChangeService.

/** What an event's reports describe its objects with, worked out once per loaded event. */
export interface EventView {
  /** The settings object info reads (settingsOf). */
  settings: EventDoc;
  rules: ObjectRules;
  /** The bookable objects, in chart order. */
  objects: ChartObject[];
}

/** What reports read of an event: its view and every object's snapshot, from one reading. */
export interface EventObjects {
  loaded: LoadedEvent;
  view: EventView;
  snapshot(object: ChartObject): ObjectSnapshot;
  /**
   * What summaries must read object by object, beside what the sale settings alone make of
   * the rest (free, no record, outside any season): outside seasons the GA areas, with
   * `records` the records of the seats, tables and booths; in a season every object, and
   * `records` null. Either may hold objects that are not bookable in the event (seats of
   * a table booked as a whole, say), and `records` labels no longer on the chart.
   */
  touched(): ChartObject[];
  records: Pick<WholeEventState, 'labels' | 'values' | 'statusOf'> | null;
  /** The event fields its objects share, made as they are asked for (describeReadJson). */
  sharedFields: EventFieldsCache;
}

/** How much of an event's state a report reads (ObjectInfoService.readAll). */
export interface ReadOptions {
  /** False for summaries, which count statuses only. */
  extraData: boolean;
}

/**
 * Layouts kept encoded, by chart version and public key: as many as the object indexes kept
 * (src/services/objectIndexes.ts), at 1.4 MB of JSON per 10,000 seats and less than a tenth of
 * that per compressed coding.
 */
const MAX_LAYOUTS = 16;

const objectNotFound = (label: string) => notFound('OBJECT_NOT_FOUND', `Object not found: ${label}`);

function objectOf(loaded: LoadedEvent, label: string): ChartObject {
  const object = loaded.index.byLabel.get(label);
  if (!object) throw objectNotFound(label);
  return object;
}

/**
 * The settings object info reads: a unit of a season also shows its season's channels and,
 * when the season propagates it, its for-sale config where it has none of its own.
 */
function settingsOf(loaded: LoadedEvent): EventDoc {
  const { event, season } = loaded;
  if (!season || season.role === 'top') return event;
  return {
    ...event,
    channels: [...event.channels, ...season.top.channels],
    forSaleConfig: event.forSaleConfig ?? (season.propagated ? season.top.forSaleConfig : null),
  };
}

/**
 * The object rules of a unit: its settings' (settingsOf), except that an object a unit with
 * a for-sale config of its own keeps entirely on sale stays off sale where its top-level
 * season, propagating its config, keeps it off: the status script falls back to the
 * season's places object by object (lua/includes/eventState.lua, saleField), as "not for
 * sale on the season means unavailable in every event" (docs/seasons.md, "Rules") asks.
 */
function rulesOf(loaded: LoadedEvent, settings: EventDoc, make: (event: EventDoc, index: ObjectIndex) => ObjectRules): ObjectRules {
  const rules = make(settings, loaded.index);
  const { event, season } = loaded;
  if (!season || season.role === 'top' || !season.propagated || !event.forSaleConfig || !season.top.forSaleConfig) return rules;
  const seasonRules = make(season.top, loaded.index);
  return { ...rules, notForSale: (object) => rules.notForSale(object) || seasonRules.notForSale(object) };
}

export class ObjectInfoService {
  /** Each loaded event's view, while the catalog keeps it (a changed event is loaded anew). */
  private readonly views = new WeakMap<LoadedEvent, EventView>();
  /** Each layout's bytes (layout), by chart version and public key. */
  private readonly layouts = new Lru<string, EncodedBody>(MAX_LAYOUTS);

  constructor(
    private readonly catalog: EventCatalog,
    private readonly objects: EventObjectStore,
  ) {}

  /**
   * What a page needs to draw the event (src/domain/eventLayout.ts), and the workspace's
   * public key, with which a browser subscribes to the status stream: JSON made once per
   * chart version and public key, `{publicKey, layoutVersion, bounds, categories, objects}`.
   * Without waiting when the event is loaded and its layout made already (a seat map's
   * every load in an on-sale).
   */
  layout(workspace: WorkspaceDoc, eventKey: string): EncodedBody | Promise<EncodedBody> {
    const loaded = this.catalog.peek(workspace, eventKey);
    if (loaded) return this.layoutOf(loaded, workspace.key);
    return this.catalog.get(workspace, eventKey).then((found) => this.layoutOf(found, workspace.key));
  }

  private layoutOf(loaded: LoadedEvent, publicKey: string): EncodedBody {
    const id = `${loaded.chart.published.drawingId}\u0000${publicKey}`;
    let body = this.layouts.get(id);
    if (body === undefined) {
      const json = JSON.stringify({ publicKey, ...eventLayout(loaded.index) });
      this.layouts.set(id, (body = new EncodedBody(Buffer.from(json), 'application/json')));
    }
    return body;
  }

  /** The object info of each label, by label; 404 OBJECT_NOT_FOUND for a label the chart lacks. */
  async describe(workspace: WorkspaceDoc, eventKey: string, labels: string[]): Promise<Record<string, Record<string, unknown>>> {
    const loaded = await this.catalog.get(workspace, eventKey);
    const objects = labels.map((label) => objectOf(loaded, label));
    const snapshots = await this.snapshots(loaded, labels, Date.now());
    const settings = settingsOf(loaded);
    const rules = rulesOf(loaded, settings, directRules);
    const result: Record<string, Record<string, unknown>> = {};
    for (const object of objects) {
      result[object.label] = describeEventObject(settings, loaded.index, object, snapshots.get(object.label)!, rules);
    }
    return result;
  }

  /**
   * The objects' snapshots as a client of the unit sees them (docs/seasons.md, "Records";
   * seasonView says how): its own, and of the units of its season's scope, each read once.
   * `labels` null: every object of the chart, each unit's state read whole (reports).
   */
  private async snapshots(loaded: LoadedEvent, labels: string[] | null, now: number): Promise<Map<string, ObjectSnapshot>> {
    const own = await this.objects.readSnapshots(loaded.event, loaded.index, labels, now);
    const scope = loaded.season;
    if (!scope || own.size === 0) return own;
    const all = labels ?? [...own.keys()];
    const isArea = (label: string) => loaded.index.byLabel.get(label)?.objectType === 'generalAdmission';
    const areas = all.filter(isArea);
    const freeSeats = all.filter((label) => !isArea(label) && own.get(label)!.state.status === 'free');
    // The units of the groups are read for the areas, and for the seats free here: on a
    // top-level season only those some unit holds a record of.
    let groupSeats: string[] = [];
    if (scope.groups.length > 0 && freeSeats.length > 0) {
      groupSeats = scope.role === 'top' ? await this.objects.recordedInSeason(loaded.event, freeSeats) : freeSeats;
    }
    const read = (unit: EventDoc, wanted: string[] | null) => this.objects.readSnapshots(unit, loaded.index, wanted, now);
    const [sum, groups, overridden, heldBack] = await Promise.all([
      Promise.all(scope.sum.map((unit) => read(unit, labels))),
      Promise.all(scope.groups.map((group) => Promise.all(group.map((unit) => read(unit, [...areas, ...groupSeats]))))),
      scope.role === 'event' ? this.objects.readOverrides(loaded.event, labels) : new Set<string>(),
      scope.role !== 'event' && freeSeats.length > 0 ? this.objects.heldBackByEvents(loaded.event, freeSeats) : new Set<string>(),
    ]);
    seasonView(scope.role, own, { sum, groups, overridden, heldBack, isArea });
    return own;
  }

  /**
   * Every bookable object of the event with its snapshot, from one reading of the event's
   * state (and, in a season, of its season's units), for reports: nothing is read per object.
   */
  async readAll(workspace: WorkspaceDoc, eventKey: string, options: ReadOptions = { extraData: true }): Promise<EventObjects> {
    const loaded = await this.catalog.get(workspace, eventKey);
    const view = this.viewOf(loaded);
    const now = Date.now();
    if (!loaded.season) {
      const whole = await this.objects.readWhole(loaded.event, now, options.extraData);
      return {
        loaded,
        view,
        snapshot: (object) => whole.snapshot(object),
        touched: () => view.objects.filter((object) => object.objectType === 'generalAdmission'),
        records: whole,
        sharedFields: new EventFieldsCache(view.rules),
      };
    }
    const snapshots = view.objects.length === 0 ? new Map<string, ObjectSnapshot>() : await this.snapshots(loaded, null, now);
    return { loaded, view, snapshot: (object) => snapshots.get(object.label)!, touched: () => view.objects, records: null, sharedFields: new EventFieldsCache(view.rules) };
  }

  /** The object info of one object of `readAll`'s answer. */
  describeRead(read: EventObjects, object: ChartObject): Record<string, unknown> {
    const { settings, rules } = read.view;
    return describeEventObject(settings, read.loaded.index, object, read.snapshot(object), rules);
  }

  /**
   * The same object info as its event fields and its JSON text (for big reports, which
   * serialise what they describe at once). The chart's part of the JSON is written anew
   * each time (chartMembersJson: some 60 ms per 100,000 objects), not kept: kept, it was
   * some 50 MB per 100,000-object chart version for as long as its index lived. The event
   * fields most objects share are made once per reading (`sharedFields`).
   */
  describeReadJson(read: EventObjects, object: ChartObject): { fields: Record<string, unknown>; json: () => string } {
    const { fields, text } = read.sharedFields.of(object, read.snapshot(object));
    return { fields, json: () => objectInfoJson(chartMembersJson(read.loaded.index, object), text()) };
  }

  private viewOf(loaded: LoadedEvent): EventView {
    let view = this.views.get(loaded);
    if (!view) {
      const settings = settingsOf(loaded);
      view = { settings, rules: rulesOf(loaded, settings, indexedRules), objects: bookableObjects(loaded.event, loaded.index) };
      this.views.set(loaded, view);
    }
    return view;
  }

  /** Replaces the extra data of each object named; every label is checked before anything is written. */
  async setExtraData(workspace: WorkspaceDoc, eventKey: string, entries: [string, Record<string, unknown>][]): Promise<void> {
    const loaded = await this.catalog.get(workspace, eventKey);
    if (loaded.event.isInThePast) throw eventInThePast(loaded.event.key);
    const fields = new Map(entries.map(([label, data]) => [objectOf(loaded, label).label, extraDataText(label, data)!]));
    await this.objects.setExtraData(loaded.event, fields);
  }

  /** The labels of the seats, tables and booths changed under an order id, sorted. */
  async orderLabels(workspace: WorkspaceDoc, eventKey: string, orderId: string): Promise<string[]> {
    const loaded = await this.catalog.get(workspace, eventKey);
    const records = await this.objects.storedRecords(loaded.event);
    const now = Date.now();
    return Object.entries(records)
      .filter(([label, record]) => {
        const object = loaded.index.byLabel.get(label);
        return object && object.objectType !== 'generalAdmission' && objectState(record, () => Infinity, now).orderId === orderId;
      })
      .map(([label]) => label)
      .sort();
  }
}
