import { notFound } from '../domain/errors.js';
import type { EventDoc } from '../domain/event.js';
import { eventsOf, familyOf, type SeasonFamily } from '../domain/season.js';
import { topIdOf } from '../inventory/eventKeys.js';
import type { UsedObjects } from '../inventory/usedObjects.js';
import type { Events } from '../metadata/events.js';
import type { Tenant } from '../domain/tenant.js';

// Usage (billing, docs/seatsio-behaviour.md "Usage"): the distinct objects of each event
// passed to book, hold or change-object-status, per month, for the workspaces of a company.
// Usage outlives deleted events and workspaces.

export interface MonthUsage {
  month: { year: number; month: number };
  numUsedObjects: number;
}

export interface WorkspaceUsage {
  workspace: { id: number; name: string | null };
  usageByEvent: { event: { id: number; key: string | null }; numUsedObjects: number }[];
}

export class UsageService {
  constructor(
    private readonly used: UsedObjects,
    private readonly events: Events,
  ) {}

  /** Per month with usage, the company's total, oldest month first. */
  async months(tenant: Tenant): Promise<MonthUsage[]> {
    const months = new Set<string>();
    for (const workspace of await this.workspacesOf(tenant)) for (const month of await this.used.monthsInUse(workspace._id)) months.add(month);
    const usage: MonthUsage[] = [];
    for (const month of [...months].sort()) {
      const total = (await this.month(tenant, month)).flatMap((w) => w.usageByEvent).reduce((sum, e) => sum + e.numUsedObjects, 0);
      const [year, number] = month.split('-').map(Number);
      usage.push({ month: { year: year!, month: number! }, numUsedObjects: total });
    }
    return usage;
  }

  /** Per workspace, its events used in the month `YYYY-MM` with how many objects each used. */
  async month(tenant: Tenant, month: string): Promise<WorkspaceUsage[]> {
    const details: WorkspaceUsage[] = [];
    for (const workspace of await this.workspacesOf(tenant)) {
      const ids = await this.used.eventsInUse(workspace._id, month);
      if (ids.length === 0) continue;
      // Deleted events keep their usage under the tag they had; a deleted one's is taken to be its id.
      const docs = await Promise.all(ids.map((id) => this.events.findById(id)));
      const events = ids.map((id, i) => ({ _id: id, tag: docs[i]?.tag ?? String(id), key: docs[i]?.key ?? null }));
      const counts = await this.used.usedObjectCounts(events, month);
      const usage = new Map(events.map((event, i) => [event._id, { event: { id: event._id, key: event.key }, numUsedObjects: counts[i]! }]));
      for (const [event, numUsedObjects] of await this.seasonUsage(docs, ids, month)) usage.set(event._id, { event: { id: event._id, key: event.key }, numUsedObjects });
      details.push({
        workspace: { id: workspace._id, name: workspace.name },
        usageByEvent: [...usage.values()].sort((a, b) => a.event.id - b.event.id),
      });
    }
    return details;
  }

  /**
   * An object used on a season (or partial season) counts as used on each of its events too
   * (docs/seasons.md, "Used seats"): those events' distinct objects with the seasons' added.
   */
  private async seasonUsage(docsInUse: (EventDoc | null)[], idsInUse: number[], month: string): Promise<Map<EventDoc, number>> {
    const extra = new Map<number, { event: EventDoc; labels: Set<string> }>();
    const families = new Map<number, SeasonFamily>();
    for (const season of docsInUse) {
      const role = season?.season?.role;
      if (!season || (role !== 'top' && role !== 'partial')) continue;
      const topId = topIdOf(season)!;
      if (!families.has(topId)) families.set(topId, familyOf(await this.events.seasonFamily(topId)));
      const family = families.get(topId)!;
      const labels = await this.used.usedObjects(season, month);
      for (const event of eventsOf(season, family)) {
        const entry = extra.get(event._id) ?? { event, labels: new Set(idsInUse.includes(event._id) ? await this.used.usedObjects(event, month) : []) };
        for (const label of labels) entry.labels.add(label);
        extra.set(event._id, entry);
      }
    }
    return new Map([...extra.values()].map(({ event, labels }) => [event, labels.size]));
  }

  /** The objects one event of the company used in the month; 404 for an event it never had. */
  async eventObjects(tenant: Tenant, month: string, eventId: number): Promise<string[]> {
    const event = await this.events.findById(eventId);
    const workspaces = (await this.workspacesOf(tenant)).map((w) => w._id);
    const inUse = await Promise.all(workspaces.map((w) => this.used.eventsInUse(w, month)));
    if (!inUse.some((ids) => ids.includes(eventId)) && !(event && tenant.workspacesById.has(event.workspaceId))) {
      throw notFound('EVENT_NOT_FOUND', `Event not found: ${eventId}`);
    }
    return this.used.usedObjects(event ?? { _id: eventId, tag: String(eventId) }, month);
  }

  /** Every workspace that used objects, deleted ones included (with a null name). */
  private async workspacesOf(tenant: Tenant): Promise<{ _id: number; name: string | null }[]> {
    return (await this.used.workspacesInUse(tenant.company._id)).map((id) => ({ _id: id, name: tenant.workspacesById.get(id)?.name ?? null }));
  }
}
