import { badRequest } from '../domain/errors.js';
import { describeEventObject } from '../domain/eventObjectInfo.js';
import { bookableObjects } from '../domain/eventObjects.js';
import { ok, workspaceRoute, type RouteDef } from '../http/route.js';
import { readSnapshots } from '../inventory/objectSnapshots.js';
import type { WorkspaceDoc } from '../metadata/workspaces.js';
import type { ApiDeps } from './deps.js';
import type { EventCatalog } from './eventCatalog.js';

// Event reports (compat-notes §6). The by-status report groups every bookable object of
// the event by its status; only statuses that occur appear. Not for the sales flow: it
// reads the whole event.

export function eventReportRoutes(deps: ApiDeps, catalog: EventCatalog): RouteDef[] {
  async function byStatus(workspace: WorkspaceDoc, key: string): Promise<Record<string, unknown[]>> {
    const loaded = await catalog.get(workspace, key);
    const objects = bookableObjects(loaded.event, loaded.index);
    const snapshots = await readSnapshots(deps.redis, loaded.event, loaded.index, objects.map((o) => o.label), Date.now());
    const report: Record<string, unknown[]> = {};
    for (const object of objects) {
      const info = describeEventObject(loaded.event, loaded.index, object, snapshots.get(object.label)!);
      (report[info.status as string] ??= []).push(info);
    }
    return report;
  }

  return [
    workspaceRoute({
      method: 'GET',
      path: '/reports/events/:key/byStatus',
      handler: async (ctx) => ok(await byStatus(ctx.workspace, ctx.params.key!)),
    }),
    workspaceRoute({
      method: 'GET',
      path: '/reports/events/:key/byStatus/:status',
      handler: async (ctx) => {
        const status = ctx.params.status!;
        if (status === 'summary') throw badRequest('GENERAL_ERROR', 'summary reports are not supported yet');
        const report = await byStatus(ctx.workspace, ctx.params.key!);
        return ok({ [status]: report[status] ?? [] });
      },
    }),
  ];
}
