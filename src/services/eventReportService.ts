import { eventCategories } from '../domain/eventObjectRules.js';
import { objectStanding } from '../domain/eventObjectInfo.js';
import type { ChartObject } from '../domain/objectIndex.js';
import type { AreaState } from '../domain/objectStates.js';
import {
  byLabelOrder,
  CSV_HEADER,
  csvRow,
  emptyGroups,
  EVENT_DIMENSIONS,
  groupOf,
  summaryReport,
  Tally,
  tallyEventObject,
  type EventReportType,
  type EventSummaryType,
  type SummaryNode,
} from '../domain/reports.js';
import type { WorkspaceDoc } from '../metadata/workspaces.js';
import { inSlices, joinedJson } from '../util/slices.js';
import type { EventObjects, ObjectInfoService } from './objectInfoService.js';
import { groupedJson } from './reportJson.js';

// Event reports (docs/reports.md): every bookable object of an event, read from one
// reading of its state (ObjectInfoService.readAll), described as object info and grouped
// (detailed reports, the flat list, CSV) or counted (summaries). The loops over the objects
// run in slices (src/util/slices.ts) so a 100,000-seat report does not hold up the sales
// flow; detailed reports are serialised as they are described, never kept as objects.

export class EventReportService {
  constructor(private readonly objects: ObjectInfoService) {}

  /** A detailed report as JSON: `{group: [object info, ...]}`; with `only`, that group alone (`[]` when empty). */
  async detailed(workspace: WorkspaceDoc, eventKey: string, type: EventReportType, only?: string): Promise<Buffer> {
    const read = await this.objects.readAll(workspace, eventKey);
    const always = emptyGroups(type, read.loaded.index, eventCategories(read.settings, read.loaded.index));
    return groupedJson(read.objects, (object) => this.objects.describeRead(read, object), (info) => groupOf(type, info), always, only);
  }

  /** Every bookable object's info, sorted by label, as a JSON array. */
  async flat(workspace: WorkspaceDoc, eventKey: string): Promise<Buffer> {
    const read = await this.objects.readAll(workspace, eventKey);
    const texts: string[] = [];
    await inSlices(sortedByLabel(read.objects), (object) => texts.push(JSON.stringify(this.objects.describeRead(read, object))));
    return joinedJson('[', texts, ']');
  }

  /** The flat report as CSV: a header row, then one row per object. */
  async csv(workspace: WorkspaceDoc, eventKey: string): Promise<Buffer> {
    const read = await this.objects.readAll(workspace, eventKey);
    const rows: string[] = [CSV_HEADER];
    await inSlices(sortedByLabel(read.objects), (object) => rows.push(csvRow(this.objects.describeRead(read, object))));
    return Buffer.from(rows.join(''));
  }

  /** A summary (or deep summary) by `type`: places per group, split by every other dimension. */
  async summary(workspace: WorkspaceDoc, eventKey: string, type: EventSummaryType, deep: boolean): Promise<Record<string, SummaryNode>> {
    const read = await this.objects.readAll(workspace, eventKey);
    const tally = await eventTally(read);
    return summaryReport(tally, type, emptyGroups(type, read.loaded.index, eventCategories(read.settings, read.loaded.index)), deep);
  }
}

const sortedByLabel = (objects: ChartObject[]) => byLabelOrder([...objects]);

/** The places of every object of the event by combination of the summary dimensions. */
async function eventTally(read: EventObjects): Promise<Tally<(typeof EVENT_DIMENSIONS)[number]>> {
  const tally = new Tally(EVENT_DIMENSIONS);
  const { rules, snapshots } = read;
  await inSlices(read.objects, (object) => {
    const snapshot = snapshots.get(object.label)!;
    tallyEventObject(tally, {
      object,
      category: rules.category(object),
      channel: rules.channel(object.label),
      standing: objectStanding(object, snapshot, rules.notForSale(object)),
      areaStatus: object.objectType === 'generalAdmission' ? (snapshot.state as AreaState).status : '',
    });
  });
  return tally;
}
