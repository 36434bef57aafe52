import { notFound } from '../domain/errors.js';
import type { EventDoc } from '../domain/event.js';
import { describeEventObject, type ObjectSnapshot } from '../domain/eventObjectInfo.js';
import type { AreaState } from '../domain/objectStates.js';
import { eventInThePast, type SeasonScope } from '../domain/season.js';
import { bookableObjects } from '../domain/eventObjectRules.js';
import type { ChartObject } from '../domain/objectIndex.js';
import { objectState } from '../domain/objectStates.js';
import { extraDataText } from '../domain/statusChangeRequest.js';
import type { EventObjectStore } from '../inventory/eventObjectStore.js';
import type { WorkspaceDoc } from '../metadata/workspaces.js';
import type { EventCatalog, LoadedEvent } from './eventCatalog.js';

// Reading and annotating the objects of an event: object info (docs/seatsio-behaviour.md,
// "Object info"), extra data, the objects of an order and the by-status report. Not the
// sales flow: statuses change only through StatusChangeService.

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

export class ObjectInfoService {
  constructor(
    private readonly catalog: EventCatalog,
    private readonly objects: EventObjectStore,
  ) {}

  /** The object info of each label, by label; 404 OBJECT_NOT_FOUND for a label the chart lacks. */
  async describe(workspace: WorkspaceDoc, eventKey: string, labels: string[]): Promise<Record<string, unknown>> {
    const loaded = await this.catalog.get(workspace, eventKey);
    const objects = labels.map((label) => objectOf(loaded, label));
    const snapshots = await this.snapshots(loaded, labels, Date.now());
    const settings = settingsOf(loaded);
    const result: Record<string, unknown> = {};
    for (const object of objects) {
      result[object.label] = describeEventObject(settings, loaded.index, object, snapshots.get(object.label)!);
    }
    return result;
  }

  /**
   * The objects' snapshots as a client of the event sees them. In an event of a season, a
   * seat, table or booth free in the event itself shows what its season or a partial season
   * took, unless the event overrides the season's status (docs/seasons.md).
   */
  private async snapshots(loaded: LoadedEvent, labels: string[], now: number): Promise<Map<string, ObjectSnapshot>> {
    const own = await this.objects.readSnapshots(loaded.event, loaded.index, labels, now);
    if (!loaded.season || labels.length === 0) return own;
    await this.subtractSeasonPlaces(loaded, loaded.season, own, now);
    if (loaded.season.role !== 'event') {
      await this.markTakenElsewhere(loaded, loaded.season, own, now);
      return own;
    }
    const [overrides, ...seasonal] = await Promise.all([
      this.objects.readOverrides(loaded.event, labels),
      ...loaded.season.sum.map((unit) => this.objects.readSnapshots(unit, loaded.index, labels, now)),
    ]);
    for (const label of labels) {
      const snapshot = own.get(label)!;
      if (overrides.has(label)) {
        snapshot.seasonStatusOverridden = true;
        continue;
      }
      if (snapshot.state.status !== 'free' || loaded.index.byLabel.get(label)?.objectType === 'generalAdmission') continue;
      const taken = seasonal.map((s) => s.get(label)!).find((s) => s.state.status !== 'free');
      if (taken) snapshot.state = taken.state;
    }
    return own;
  }

  /**
   * GA areas in a unit of a season: what the script subtracts (lua/includes/areaRules.lua,
   * seasonAreaTaken), the places the `sum` units took plus the fullest of the `groups`.
   */
  private async subtractSeasonPlaces(loaded: LoadedEvent, scope: SeasonScope, snapshots: Map<string, ObjectSnapshot>, now: number): Promise<void> {
    const areas = [...snapshots.keys()].filter((label) => loaded.index.byLabel.get(label)?.objectType === 'generalAdmission');
    if (areas.length === 0) return;
    const read = (units: EventDoc[]) => Promise.all(units.map((unit) => this.objects.readSnapshots(unit, loaded.index, areas, now)));
    const [sum, groups] = await Promise.all([read(scope.sum), Promise.all(scope.groups.map(read))]);
    const taken = (unit: Map<string, ObjectSnapshot>, label: string) => {
      const state = unit.get(label)!.state as AreaState;
      return state.nonFree + state.held;
    };
    for (const label of areas) {
      const fullest = Math.max(0, ...groups.map((group) => group.reduce((n, unit) => n + taken(unit, label), 0)));
      snapshots.get(label)!.seasonTakenPlaces = sum.reduce((n, unit) => n + taken(unit, label), 0) + fullest;
    }
  }

  /**
   * On a season or partial season: seats, tables and booths free on it but taken by a unit
   * it is checked against (an event, a partial season) or held back by one of its events
   * are unavailable there (docs/seasons.md, "Records").
   */
  private async markTakenElsewhere(loaded: LoadedEvent, scope: SeasonScope, snapshots: Map<string, ObjectSnapshot>, now: number): Promise<void> {
    const free = [...snapshots].filter(([label, s]) => s.state.status === 'free' && loaded.index.byLabel.get(label)?.objectType !== 'generalAdmission');
    if (free.length === 0) return;
    const labels = free.map(([label]) => label);
    const heldBack = await this.objects.heldBackByEvents(loaded.event, labels);
    // On a top-level season, only objects some unit has a record of need a look at the units.
    const candidates = scope.role === 'top' ? await this.objects.recordedInSeason(loaded.event, labels) : labels;
    const units = [...scope.sum, ...scope.groups.flat()];
    const taken = candidates.length === 0 ? [] : await Promise.all(units.map((unit) => this.objects.readSnapshots(unit, loaded.index, candidates, now)));
    for (const [label, snapshot] of free) {
      const elsewhere = taken.map((s) => s.get(label)).find((s) => s && s.state.status !== 'free');
      if (elsewhere) snapshot.unavailable = elsewhere.state.status;
      else if (heldBack.has(label)) snapshot.unavailable = 'not_for_sale';
    }
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

  /** Every bookable object of the event by status; only statuses that occur appear. */
  async byStatus(workspace: WorkspaceDoc, eventKey: string): Promise<Record<string, unknown[]>> {
    const loaded = await this.catalog.get(workspace, eventKey);
    const objects = bookableObjects(loaded.event, loaded.index);
    const snapshots = await this.snapshots(loaded, objects.map((o) => o.label), Date.now());
    const settings = settingsOf(loaded);
    const report: Record<string, unknown[]> = {};
    for (const object of objects) {
      const info = describeEventObject(settings, loaded.index, object, snapshots.get(object.label)!);
      (report[info.status as string] ??= []).push(info);
    }
    return report;
  }
}
