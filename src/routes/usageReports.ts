import { badRequest } from '../domain/errors.js';
import { companyRoute, ok, type RouteDef } from '../http/route.js';
import type { UsageService } from '../services/usageService.js';

// Usage reports (docs/seatsio-behaviour.md, "Usage"): the distinct objects of each event passed to book,
// hold or change-object-status, per month, for the workspaces of the calling company.
// The company admin key only, as on seats.io.

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

function checkMonth(month: string): string {
  if (!MONTH.test(month)) throw badRequest('GENERAL_ERROR', `month must be YYYY-MM, got "${month}"`);
  return month;
}

export function usageRoutes(usage: UsageService): RouteDef[] {
  return [
    companyRoute({
      method: 'GET',
      path: '/reports/usage',
      summary: 'Used objects per month, for the whole company',
      answers: { 200: '{usageCutoffDate, usage}' },
      handler: async (ctx) => ok({ usageCutoffDate: new Date().toISOString(), usage: await usage.months(ctx.tenant) }),
    }),
    companyRoute({
      method: 'GET',
      path: '/reports/usage/month/:month',
      summary: 'Used objects of one month, per workspace and event',
      answers: { 200: 'per workspace: its events and their used objects' },
      handler: async (ctx) => ok(await usage.month(ctx.tenant, checkMonth(ctx.params.month!))),
    }),
    companyRoute({
      method: 'GET',
      path: '/reports/usage/month/:month/event/:eventId',
      summary: 'The objects one event used in a month',
      answers: { 200: '[{object}]' },
      handler: async (ctx) => {
        const month = checkMonth(ctx.params.month!);
        const id = Number(ctx.params.eventId);
        if (!Number.isInteger(id)) throw badRequest('GENERAL_ERROR', `event id must be a number, got "${ctx.params.eventId}"`);
        const objects = await usage.eventObjects(ctx.tenant, month, id);
        return ok(objects.map((object) => ({ object })));
      },
    }),
  ];
}
