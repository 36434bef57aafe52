import type { PageLimits } from '../domain/pagination.js';
import { ok, workspaceRoute, type RouteDef } from '../http/route.js';
import type { EventLog } from '../metadata/eventLog.js';
import { PageQuery, pageRequestOf } from './querySchemas.js';

// The event log of a workspace (docs/seatsio-behaviour.md, "Event log"), oldest first.

const PAGE_LIMITS: PageLimits = { defaultLimit: 100, maxLimit: 1000 };

export function eventLogRoutes(log: EventLog): RouteDef[] {
  return [
    workspaceRoute({
      method: 'GET',
      path: '/event-log',
      summary: 'A page of what admins changed in the workspace, oldest first',
      answers: { 200: 'a page of event log items' },
      query: PageQuery,
      handler: async (ctx) =>
        ok(
          await log.page(ctx.workspace._id, pageRequestOf(ctx.query, PAGE_LIMITS), (entry) => ({
            id: entry._id,
            type: entry.type,
            timestamp: entry.timestamp.toISOString(),
            data: entry.key === undefined ? { workspaceKey: ctx.workspace.key } : { workspaceKey: ctx.workspace.key, key: entry.key },
          })),
        ),
    }),
  ];
}
