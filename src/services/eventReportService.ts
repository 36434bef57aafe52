import { eventCategories } from '../domain/eventObjectRules.js';
import { objectStanding } from '../domain/eventObjectInfo.js';
import { labelPositions } from '../domain/labelPositions.js';
import type { ChartObject } from '../domain/objectIndex.js';
import type { AreaState } from '../domain/objectStates.js';
import {
  byLabelOrder,
  CSV_HEADER,
  csvRow,
  emptyGroups,
  EventTally,
  groupOfObject,
  summaryReport,
  tallyLayout,
  type EventReportType,
  type EventSummaryType,
  type SummaryNode,
  type TallyLayout,
} from '../domain/reports.js';
import type { WorkspaceDoc } from '../metadata/workspaces.js';
import { inSlices } from '../util/slices.js';
import type { EventObjects, EventView, ObjectInfoService, ReadOptions } from './objectInfoService.js';
import { groupedJson, listBody } from './reportJson.js';
import type { ReportLane } from './reportLane.js';

// Event reports (docs/reports.md): every bookable object of an event, read from one
// reading of its state (ObjectInfoService.readAll), described as object info and grouped
// (detailed reports, the flat list, CSV) or counted (summaries). They run in the report
// thread (src/reportThread.ts), in its lane, one at a time, in slices that rest while the
// server answers other requests (src/services/reportLane.ts); detailed reports are
// serialised as they are described.

/** What the event report routes ask for (answered in the report thread: src/services/reportThreadClient.ts). */
export type EventReports = Pick<EventReportService, 'detailed' | 'flat' | 'csv' | 'summary'>;

export class EventReportService {
  /** Per event view (so per loaded event): what summaries need of its objects that does not change with their state. */
  private readonly layouts = new WeakMap<EventView, TallyLayout>();

  constructor(
    private readonly objects: ObjectInfoService,
    private readonly lane: ReportLane,
  ) {}

  /** A detailed report as gzipped JSON: `{group: [object info, ...]}`; with `only`, that group alone (`[]` when empty). */
  detailed(workspace: WorkspaceDoc, eventKey: string, type: EventReportType, only?: string): Promise<Buffer> {
    return this.inLane(workspace, eventKey, `${type}/${only ?? ''}`, async (read) => {
      const { settings, objects } = read.view;
      const always = emptyGroups(type, read.loaded.index, eventCategories(settings, read.loaded.index));
      const entry = (object: ChartObject) => {
        const { fields, json } = this.objects.describeReadJson(read, object);
        return { group: groupOfObject(type, object, fields), json };
      };
      return groupedJson(objects, entry, always, this.lane, only);
    });
  }

  /** Every bookable object's info, sorted by label, as a gzipped JSON array. */
  flat(workspace: WorkspaceDoc, eventKey: string): Promise<Buffer> {
    return this.inLane(workspace, eventKey, 'flat', (read) =>
      listBody(sortedByLabel(read.view.objects), (object) => this.objects.describeReadJson(read, object).json(), '[', ',', ']', this.lane),
    );
  }

  /** The flat report as gzipped CSV: a header row, then one row per object. */
  csv(workspace: WorkspaceDoc, eventKey: string): Promise<Buffer> {
    return this.inLane(workspace, eventKey, 'csv', (read) =>
      listBody(sortedByLabel(read.view.objects), (object) => csvRow(this.objects.describeRead(read, object)), CSV_HEADER, '', '', this.lane),
    );
  }

  /** A summary (or deep summary) by `type`: places per group, split by every other dimension. */
  summary(workspace: WorkspaceDoc, eventKey: string, type: EventSummaryType, deep: boolean): Promise<Record<string, SummaryNode>> {
    const build = async (read: EventObjects) => {
      const tally = await this.tally(read);
      const { settings } = read.view;
      return summaryReport(tally.tally(), type, emptyGroups(type, read.loaded.index, eventCategories(settings, read.loaded.index)), deep);
    };
    return this.inLane(workspace, eventKey, `${type}/summary/${deep}`, build, { extraData: false });
  }

  /** Reads the event and builds a report from it in the lane; identical waiting requests share it. */
  private inLane<T>(
    workspace: WorkspaceDoc,
    eventKey: string,
    report: string,
    build: (read: EventObjects) => Promise<T>,
    options?: ReadOptions,
  ): Promise<T> {
    return this.lane.run(`event\u0000${workspace._id}\u0000${eventKey}\u0000${report}`, async () => {
      const began = performance.now();
      const read = await this.objects.readAll(workspace, eventKey, options);
      // Decoding Redis's answer (100,000 strings on a big event) is done in one go: rest for
      // it as for a slice (the wait for Redis counts too: the read takes Redis from the sale).
      await this.lane.pause(performance.now() - began);
      return build(read);
    });
  }

  /** The places of every object of the event: only the touched ones are read, the rest counted as the layout says. */
  private async tally(read: EventObjects): Promise<EventTally> {
    const { view } = read;
    let layout = this.layouts.get(view);
    if (!layout) this.layouts.set(view, (layout = tallyLayout(read.loaded.index, view.objects, view.rules)));
    const { positionOf, seatAt, notForSale } = layout;
    const tally = new EventTally(layout);
    const at = (object: ChartObject) => positionOf[object.position]!;
    if (read.records) {
      // The seats, tables and booths with a record (GA areas are among the touched ones).
      const { labels, values, statusOf } = read.records;
      const positions = labelPositions(read.loaded.index);
      await inSlices(
        labels,
        (label, i) => {
          const inChart = positions.get(label);
          const position = inChart >= 0 ? seatAt[inChart]! : -1;
          if (position >= 0) tally.addSeat(position, statusOf(values[i]!));
        },
        this.lane.pause,
      );
    }
    await inSlices(
      read.touched(),
      (object) => {
        const i = at(object);
        if (i < 0) return;
        const snapshot = read.snapshot(object);
        const areaStatus = object.objectType === 'generalAdmission' ? (snapshot.state as AreaState).status : '';
        tally.add(i, objectStanding(object, snapshot, notForSale[i]!), areaStatus);
      },
      this.lane.pause,
    );
    return tally;
  }
}

const sortedByLabel = (objects: ChartObject[]) => byLabelOrder([...objects]);
