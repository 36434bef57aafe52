import { badRequest, notFound } from '../domain/errors.js';
import { companyRoute, ok, type CompanyContext, type RouteDef } from '../http/route.js';
import { eventsInUse, monthsInUse, usedObjectCounts, usedObjects, workspacesInUse } from '../inventory/usage.js';
import type { ApiDeps } from './deps.js';

// Usage reports (compat-notes §6, §11): the distinct objects of each event passed to book,
// hold or change-object-status, per month, for the workspaces of the calling company.
// The company admin key only, as on seats.io.

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

function checkMonth(month: string): string {
  if (!MONTH.test(month)) throw badRequest('GENERAL_ERROR', `month must be YYYY-MM, got "${month}"`);
  return month;
}

export function usageRoutes(deps: ApiDeps): RouteDef[] {
  const { redis, repos } = deps;
  /** Every workspace that used objects, deleted ones included (with a null name). */
  const workspacesOf = async (ctx: CompanyContext) =>
    (await workspacesInUse(redis, ctx.tenant.company._id)).map((id) => ({ _id: id, name: ctx.tenant.workspacesById.get(id)?.name ?? null }));

  /** Per workspace, its events used in the month with how many objects each used. */
  async function monthDetails(ctx: CompanyContext, month: string) {
    const details = [];
    for (const workspace of await workspacesOf(ctx)) {
      const ids = await eventsInUse(redis, workspace._id, month);
      if (ids.length === 0) continue;
      // Deleted events keep their usage; their tag is their id (events in seasons come later).
      const events = await Promise.all(
        ids.map(async (id) => {
          const doc = await repos.events.findById(id);
          return { _id: id, tag: doc?.tag ?? String(id), key: doc?.key ?? null };
        }),
      );
      const counts = await usedObjectCounts(redis, events, month);
      details.push({
        workspace: { id: workspace._id, name: workspace.name },
        usageByEvent: events
          .map((event, i) => ({ event: { id: event._id, key: event.key }, numUsedObjects: counts[i]! }))
          .sort((a, b) => a.event.id - b.event.id),
      });
    }
    return details;
  }

  return [
    companyRoute({
      method: 'GET',
      path: '/reports/usage',
      handler: async (ctx) => {
        const months = new Set<string>();
        for (const workspace of await workspacesOf(ctx)) for (const month of await monthsInUse(redis, workspace._id)) months.add(month);
        const usage = [];
        for (const month of [...months].sort()) {
          const total = (await monthDetails(ctx, month)).flatMap((w) => w.usageByEvent).reduce((sum, e) => sum + e.numUsedObjects, 0);
          const [year, number] = month.split('-').map(Number);
          usage.push({ month: { year, month: number }, numUsedObjects: total });
        }
        return ok({ usageCutoffDate: new Date().toISOString(), usage });
      },
    }),
    companyRoute({
      method: 'GET',
      path: '/reports/usage/month/:month',
      handler: async (ctx) => ok(await monthDetails(ctx, checkMonth(ctx.params.month!))),
    }),
    companyRoute({
      method: 'GET',
      path: '/reports/usage/month/:month/event/:eventId',
      handler: async (ctx) => {
        const month = checkMonth(ctx.params.month!);
        const id = Number(ctx.params.eventId);
        if (!Number.isInteger(id)) throw badRequest('GENERAL_ERROR', `event id must be a number, got "${ctx.params.eventId}"`);
        const event = await repos.events.findById(id);
        const companyWorkspaces = new Set((await workspacesOf(ctx)).map((w) => w._id));
        const inUse = await Promise.all([...companyWorkspaces].map((w) => eventsInUse(redis, w, month)));
        if (!inUse.some((ids) => ids.includes(id)) && !(event && ctx.tenant.workspacesById.has(event.workspaceId))) {
          throw notFound('EVENT_NOT_FOUND', `Event not found: ${id}`);
        }
        const objects = await usedObjects(redis, event ?? { _id: id, tag: String(id) }, month);
        return ok(objects.map((object) => ({ object })));
      },
    }),
  ];
}
