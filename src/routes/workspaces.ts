import Type from 'typebox';
import type { PageLimits } from '../domain/pagination.js';
import { companyRoute, noContent, ok, type CompanyContext, type RouteDef } from '../http/route.js';
import type { ActiveFilter } from '../metadata/workspaces.js';
import type { WorkspaceService } from '../services/workspaceService.js';
import { workspaceRecord } from './accountRecords.js';
import { FilteredPageQuery, pageRequestOf } from './querySchemas.js';

// Workspace management (docs/seatsio-behaviour.md, "Workspaces"). Company admin key only;
// how changes are written is WorkspaceService's.

// Default and maximum page size 1000 (docs/seatsio-behaviour.md, "Pagination").
const PAGE_LIMITS: PageLimits = { defaultLimit: 1000, maxLimit: 1000 };

const Name = Type.String({ minLength: 1, maxLength: 200 });
const CreateBody = Type.Object({ name: Name, isTest: Type.Optional(Type.Boolean()) });
const UpdateBody = Type.Object({ name: Name });
const RemoveKeyBody = Type.Object({ secretKey: Type.String({ minLength: 1 }) });

const LIST = { answers: { 200: 'a page of workspaces' }, query: FilteredPageQuery };

export function workspaceRoutes(workspaces: WorkspaceService): RouteDef[] {
  const list = (active: ActiveFilter) => async (ctx: CompanyContext) => {
    const request = pageRequestOf(ctx.query, PAGE_LIMITS);
    const company = ctx.tenant.company;
    return ok(await workspaces.list(company, { filter: ctx.query.one('filter'), active }, request, (doc) => workspaceRecord(doc, company)));
  };

  return [
    companyRoute({ method: 'GET', path: '/workspaces', ...LIST, summary: 'A page of the workspaces, newest first', handler: list('all') }),
    companyRoute({ method: 'GET', path: '/workspaces/active', ...LIST, summary: 'A page of the active workspaces', handler: list('active') }),
    companyRoute({ method: 'GET', path: '/workspaces/inactive', ...LIST, summary: 'A page of the inactive workspaces', handler: list('inactive') }),

    companyRoute({
      method: 'POST',
      path: '/workspaces',
      summary: 'Creates a workspace',
      answers: { 200: 'the workspace' },
      body: CreateBody,
      handler: async (ctx) => {
        const doc = await workspaces.create(ctx.tenant.company, ctx.body.name, ctx.body.isTest ?? false);
        return ok(workspaceRecord(doc, ctx.tenant.company));
      },
    }),

    companyRoute({
      method: 'GET',
      path: '/workspaces/:key',
      summary: 'One workspace',
      answers: { 200: 'the workspace' },
      handler: async (ctx) => ok(workspaceRecord(await workspaces.find(ctx.tenant, ctx.params.key!), ctx.tenant.company)),
    }),

    companyRoute({
      method: 'POST',
      path: '/workspaces/:key',
      summary: 'Renames a workspace',
      answers: { 204: 'renamed' },
      body: UpdateBody,
      handler: async (ctx) => {
        await workspaces.rename(ctx.tenant, ctx.params.key!, ctx.body.name);
        return noContent();
      },
    }),

    companyRoute({
      method: 'POST',
      path: '/workspaces/:key/actions/add-secret-key',
      summary: 'Adds a secret key to a workspace',
      answers: { 200: '{secretKey}' },
      handler: async (ctx) => ok({ secretKey: await workspaces.addSecretKey(ctx.tenant, ctx.params.key!) }),
    }),

    companyRoute({
      method: 'POST',
      path: '/workspaces/:key/actions/remove-secret-key',
      summary: 'Removes a secret key from a workspace',
      answers: { 200: '{secretKey}' },
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
      summary: 'Replaces every secret key of a workspace with one new key',
      answers: { 200: '{secretKey}' },
      handler: async (ctx) => ok({ secretKey: await workspaces.regenerateSecretKey(ctx.tenant, ctx.params.key!) }),
    }),

    companyRoute({
      method: 'POST',
      path: '/workspaces/:key/actions/deactivate',
      summary: 'Deactivates a workspace',
      answers: { 204: 'deactivated' },
      handler: async (ctx) => {
        await workspaces.deactivate(ctx.tenant, ctx.params.key!);
        return noContent();
      },
    }),

    companyRoute({
      method: 'POST',
      path: '/workspaces/:key/actions/activate',
      summary: 'Activates a workspace',
      answers: { 204: 'activated' },
      handler: async (ctx) => {
        await workspaces.activate(ctx.tenant, ctx.params.key!);
        return noContent();
      },
    }),

    companyRoute({
      method: 'POST',
      path: '/workspaces/actions/set-default/:key',
      summary: "Makes a workspace the company's default",
      answers: { 204: 'done' },
      handler: async (ctx) => {
        await workspaces.setDefault(ctx.tenant, ctx.params.key!);
        return noContent();
      },
    }),

    companyRoute({
      method: 'DELETE',
      path: '/workspaces/:key',
      summary: 'Deletes an inactive workspace',
      answers: { 204: 'deleted' },
      handler: async (ctx) => {
        await workspaces.delete(ctx.tenant, ctx.params.key!);
        return noContent();
      },
    }),
  ];
}
