import type { PageLimits } from '../domain/pagination.js';
import { badRequest } from '../domain/errors.js';
import { ok, workspaceRoute, type RouteDef, type WorkspaceContext } from '../http/route.js';
import type { HistoryService } from '../services/historyService.js';
import { HistoryListQuery, pageRequestOf } from './querySchemas.js';

// The status-change history of an event and of one object (docs/history.md).

const PAGE_LIMITS: PageLimits = { defaultLimit: 100, maxLimit: 1000 };

export function historyRoutes(history: HistoryService): RouteDef[] {
  const query = (ctx: WorkspaceContext) => {
    const filterType = ctx.query.one('filterType');
    if (filterType !== undefined && filterType !== 'CONTAINS') throw badRequest('GENERAL_ERROR', `filterType must be CONTAINS, got "${filterType}"`);
    return { page: pageRequestOf(ctx.query, PAGE_LIMITS), sort: ctx.query.one('sort'), filter: ctx.query.one('filter') };
  };
  return [
    workspaceRoute({
      method: 'GET',
      path: '/events/:key/status-changes',
      summary: 'A page of the status changes of an event, newest first by default',
      answers: { 200: 'a page of status changes' },
      query: HistoryListQuery,
      handler: async (ctx) => ok(await history.list(ctx.workspace, ctx.params.key!, query(ctx))),
    }),
    workspaceRoute({
      method: 'GET',
      path: '/events/:key/objects/:label/status-changes',
      summary: 'A page of the status changes of one object',
      answers: { 200: 'a page of status changes' },
      query: HistoryListQuery,
      handler: async (ctx) => ok(await history.list(ctx.workspace, ctx.params.key!, query(ctx), ctx.params.label!)),
    }),
  ];
}
