import Type from 'typebox';
import { parsePageRequest, type PageLimits } from '../domain/pagination.js';
import { companyRoute, noContent, ok, type CompanyContext, type RouteDef } from '../http/route.js';
import type { ActiveFilter } from '../metadata/workspaces.js';
import type { WorkspaceService } from '../services/workspaceService.js';
import { workspaceRecord } from './accountRecords.js';

// Workspace management (docs/seatsio-behaviour.md, "Workspaces"). Company admin key only;
// how changes are written is WorkspaceService's.

// compat-notes §1: default and maximum page size 1000 unless an endpoint says otherwise.
const PAGE_LIMITS: PageLimits = { defaultLimit: 1000, maxLimit: 1000 };

const Name = Type.String({ minLength: 1, maxLength: 200 });
const CreateBody = Type.Object({ name: Name, isTest: Type.Optional(Type.Boolean()) });
const UpdateBody = Type.Object({ name: Name });
const RemoveKeyBody = Type.Object({ secretKey: Type.String({ minLength: 1 }) });

export function workspaceRoutes(workspaces: WorkspaceService): RouteDef[] {
  const list = (active: ActiveFilter) => async (ctx: CompanyContext) => {
    const request = parsePageRequest(
      { limit: ctx.query.one('limit'), start_after_id: ctx.query.one('start_after_id'), end_before_id: ctx.query.one('end_before_id') },
      PAGE_LIMITS,
    );
    const company = ctx.tenant.company;
    return ok(await workspaces.list(company, { filter: ctx.query.one('filter'), active }, request, (doc) => workspaceRecord(doc, company)));
  };

  return [
    companyRoute({ method: 'GET', path: '/workspaces', handler: list('all') }),
    companyRoute({ method: 'GET', path: '/workspaces/active', handler: list('active') }),
    companyRoute({ method: 'GET', path: '/workspaces/inactive', handler: list('inactive') }),

    companyRoute({
      method: 'POST',
      path: '/workspaces',
      body: CreateBody,
      handler: async (ctx) => {
        const doc = await workspaces.create(ctx.tenant.company, ctx.body.name, ctx.body.isTest ?? false);
        return ok(workspaceRecord(doc, ctx.tenant.company));
      },
    }),

    companyRoute({
      method: 'GET',
      path: '/workspaces/:key',
      handler: async (ctx) => ok(workspaceRecord(await workspaces.find(ctx.tenant, ctx.params.key!), ctx.tenant.company)),
    }),

    companyRoute({
      method: 'POST',
      path: '/workspaces/:key',
      body: UpdateBody,
      handler: async (ctx) => {
        await workspaces.rename(ctx.tenant, ctx.params.key!, ctx.body.name);
        return noContent();
      },
    }),

    companyRoute({
      method: 'POST',
      path: '/workspaces/:key/actions/add-secret-key',
      handler: async (ctx) => ok({ secretKey: await workspaces.addSecretKey(ctx.tenant, ctx.params.key!) }),
    }),

    companyRoute({
      method: 'POST',
      path: '/workspaces/:key/actions/remove-secret-key',
      body: RemoveKeyBody,
      handler: async (ctx) => {
        await workspaces.removeSecretKey(ctx.tenant, ctx.params.key!, ctx.body.secretKey);
        return ok({ secretKey: ctx.body.secretKey });
      },
    }),

    // For a compromised key: every existing secret key stops working, one new key replaces them.
    companyRoute({
      method: 'POST',
      path: '/workspaces/:key/actions/regenerate-secret-key',
      handler: async (ctx) => ok({ secretKey: await workspaces.regenerateSecretKey(ctx.tenant, ctx.params.key!) }),
    }),

    companyRoute({
      method: 'POST',
      path: '/workspaces/:key/actions/deactivate',
      handler: async (ctx) => {
        await workspaces.deactivate(ctx.tenant, ctx.params.key!);
        return noContent();
      },
    }),

    companyRoute({
      method: 'POST',
      path: '/workspaces/:key/actions/activate',
      handler: async (ctx) => {
        await workspaces.activate(ctx.tenant, ctx.params.key!);
        return noContent();
      },
    }),

    companyRoute({
      method: 'POST',
      path: '/workspaces/actions/set-default/:key',
      handler: async (ctx) => {
        await workspaces.setDefault(ctx.tenant, ctx.params.key!);
        return noContent();
      },
    }),

    companyRoute({
      method: 'DELETE',
      path: '/workspaces/:key',
      handler: async (ctx) => {
        await workspaces.delete(ctx.tenant, ctx.params.key!);
        return noContent();
      },
    }),
  ];
}
