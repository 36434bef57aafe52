import { badRequest } from '../domain/errors.js';
import { ok, workspaceRoute, type RouteDef } from '../http/route.js';
import type { ObjectInfoService } from '../services/objectInfoService.js';

// Event reports (docs/seatsio-behaviour.md, "Reports"). The by-status report groups every
// bookable object of the event by its status; only statuses that occur appear. Not for
// the sales flow: it reads the whole event.

export function eventReportRoutes(objects: ObjectInfoService): RouteDef[] {
  return [
    workspaceRoute({
      method: 'GET',
      path: '/reports/events/:key/byStatus',
      summary: 'Every bookable object of the event, by status',
      answers: { 200: 'status -> object infos' },
      handler: async (ctx) => ok(await objects.byStatus(ctx.workspace, ctx.params.key!)),
    }),
    workspaceRoute({
      method: 'GET',
      path: '/reports/events/:key/byStatus/:status',
      summary: 'The bookable objects of the event in one status',
      answers: { 200: '{<status>: object infos}' },
      handler: async (ctx) => {
        const status = ctx.params.status!;
        if (status === 'summary') throw badRequest('GENERAL_ERROR', 'summary reports are not supported yet');
        const report = await objects.byStatus(ctx.workspace, ctx.params.key!);
        return ok({ [status]: report[status] ?? [] });
      },
    }),
  ];
}
