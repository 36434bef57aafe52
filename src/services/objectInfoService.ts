import { notFound } from '../domain/errors.js';
import { describeEventObject } from '../domain/eventObjectInfo.js';
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

export class ObjectInfoService {
  constructor(
    private readonly catalog: EventCatalog,
    private readonly objects: EventObjectStore,
  ) {}

  /** The object info of each label, by label; 404 OBJECT_NOT_FOUND for a label the chart lacks. */
  async describe(workspace: WorkspaceDoc, eventKey: string, labels: string[]): Promise<Record<string, unknown>> {
    const loaded = await this.catalog.get(workspace, eventKey);
    const objects = labels.map((label) => objectOf(loaded, label));
    const snapshots = await this.objects.readSnapshots(loaded.event, loaded.index, labels, Date.now());
    const result: Record<string, unknown> = {};
    for (const object of objects) {
      result[object.label] = describeEventObject(loaded.event, loaded.index, object, snapshots.get(object.label)!);
    }
    return result;
  }

  /** Replaces the extra data of each object named; every label is checked before anything is written. */
  async setExtraData(workspace: WorkspaceDoc, eventKey: string, entries: [string, Record<string, unknown>][]): Promise<void> {
    const loaded = await this.catalog.get(workspace, eventKey);
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
    const snapshots = await this.objects.readSnapshots(loaded.event, loaded.index, objects.map((o) => o.label), Date.now());
    const report: Record<string, unknown[]> = {};
    for (const object of objects) {
      const info = describeEventObject(loaded.event, loaded.index, object, snapshots.get(object.label)!);
      (report[info.status as string] ??= []).push(info);
    }
    return report;
  }
}
