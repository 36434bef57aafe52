import Type from 'typebox';
import { badRequest, notFound } from '../domain/errors.js';
import { newKey } from '../domain/keys.js';
import { parsePageRequest, type PageLimits } from '../domain/pagination.js';
import { untilWritten } from '../metadata/conditionalWrite.js';
import { companyRoute, noContent, ok, type CompanyContext, type RouteDef } from '../http/route.js';
import type { Companies } from '../metadata/companies.js';
import type { TenantCache } from '../metadata/tenantCache.js';
import type { ActiveFilter, WorkspaceDoc, Workspaces } from '../metadata/workspaces.js';
import { workspaceRecord } from './accountRecords.js';

// Workspace management (spec "Workspaces", compat-notes §7). Company admin key only.
// Every change reads the workspace fresh from MongoDB, writes it conditionally on its
// version (retrying on a concurrent change), then invalidates the tenant cache everywhere.

// compat-notes §1: default and maximum page size 1000 unless an endpoint says otherwise.
const PAGE_LIMITS: PageLimits = { defaultLimit: 1000, maxLimit: 1000 };
const MAX_SECRET_KEYS = 10;

const Name = Type.String({ minLength: 1, maxLength: 200 });
const CreateBody = Type.Object({ name: Name, isTest: Type.Optional(Type.Boolean()) });
const UpdateBody = Type.Object({ name: Name });
const RemoveKeyBody = Type.Object({ secretKey: Type.String({ minLength: 1 }) });

type Change = Partial<Pick<WorkspaceDoc, 'name' | 'isActive' | 'secretKeys'>>;

export function workspaceRoutes(workspaces: Workspaces, companies: Companies, tenants: TenantCache): RouteDef[] {

  async function find(ctx: CompanyContext, key: string): Promise<WorkspaceDoc> {
    const doc = await workspaces.findByKey(ctx.tenant.company._id, key);
    if (!doc) throw notFound('WORKSPACE_NOT_FOUND', `Workspace not found: ${key} was not found in this company`);
    return doc;
  }

  /** Applies `decide` to the current workspace until the conditional write wins. */
  function change(ctx: CompanyContext, key: string, decide: (doc: WorkspaceDoc) => Change): Promise<WorkspaceDoc> {
    return untilWritten(`Workspace ${key}`, async () => {
      const doc = await find(ctx, key);
      const fields = decide(doc);
      if (!(await workspaces.updateIfUnchanged(doc, fields))) return undefined;
      await tenants.changed(doc.companyId);
      return { ...doc, ...fields };
    });
  }

  const list = (active: ActiveFilter) => async (ctx: CompanyContext) => {
    const request = parsePageRequest(
      { limit: ctx.query.one('limit'), start_after_id: ctx.query.one('start_after_id'), end_before_id: ctx.query.one('end_before_id') },
      PAGE_LIMITS,
    );
    const company = ctx.tenant.company;
    const page = await workspaces.list(company._id, { filter: ctx.query.one('filter'), active }, request, (doc) =>
      workspaceRecord(doc, company),
    );
    return ok(page);
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
        const company = ctx.tenant.company;
        const doc = await workspaces.create({ companyId: company._id, name: ctx.body.name, isTest: ctx.body.isTest ?? false });
        await tenants.changed(company._id);
        return ok(workspaceRecord(doc, company));
      },
    }),

    companyRoute({
      method: 'GET',
      path: '/workspaces/:key',
      handler: async (ctx) => ok(workspaceRecord(await find(ctx, ctx.params.key!), ctx.tenant.company)),
    }),

    companyRoute({
      method: 'POST',
      path: '/workspaces/:key',
      body: UpdateBody,
      handler: async (ctx) => {
        await change(ctx, ctx.params.key!, () => ({ name: ctx.body.name }));
        return noContent();
      },
    }),

    companyRoute({
      method: 'POST',
      path: '/workspaces/:key/actions/add-secret-key',
      handler: async (ctx) => {
        const secretKey = newKey();
        await change(ctx, ctx.params.key!, (doc) => {
          if (doc.secretKeys.length >= MAX_SECRET_KEYS) {
            throw badRequest('TOO_MANY_SECRET_KEYS', `A workspace has at most ${MAX_SECRET_KEYS} secret keys; remove one first`);
          }
          return { secretKeys: [...doc.secretKeys, secretKey] };
        });
        return ok({ secretKey });
      },
    }),

    companyRoute({
      method: 'POST',
      path: '/workspaces/:key/actions/remove-secret-key',
      body: RemoveKeyBody,
      handler: async (ctx) => {
        const { secretKey } = ctx.body;
        await change(ctx, ctx.params.key!, (doc) => {
          if (!doc.secretKeys.includes(secretKey)) throw badRequest('SECRET_KEY_NOT_FOUND', 'That secret key does not belong to this workspace');
          if (doc.secretKeys.length === 1) {
            throw badRequest('LAST_SECRET_KEY', 'Cannot remove the only secret key of a workspace; add a new one first');
          }
          return { secretKeys: doc.secretKeys.filter((k) => k !== secretKey) };
        });
        return ok({ secretKey });
      },
    }),

    // For a compromised key: every existing secret key stops working, one new key replaces them.
    companyRoute({
      method: 'POST',
      path: '/workspaces/:key/actions/regenerate-secret-key',
      handler: async (ctx) => {
        const secretKey = newKey();
        await change(ctx, ctx.params.key!, () => ({ secretKeys: [secretKey] }));
        return ok({ secretKey });
      },
    }),

    companyRoute({
      method: 'POST',
      path: '/workspaces/:key/actions/deactivate',
      handler: async (ctx) => {
        const cannot = () => badRequest('DEFAULT_WORKSPACE', 'The default workspace cannot be deactivated; make another workspace the default first');
        const doc = await change(ctx, ctx.params.key!, (current) => {
          if (current._id === ctx.tenant.company.defaultWorkspaceId) throw cannot();
          return { isActive: false };
        });
        // Company and workspace are two documents: a set-default racing with this call may
        // have made it the default meanwhile. Re-check fresh and undo (set-default does the same).
        if ((await companies.findById(doc.companyId))?.defaultWorkspaceId === doc._id) {
          await change(ctx, ctx.params.key!, () => ({ isActive: true }));
          throw cannot();
        }
        return noContent();
      },
    }),

    companyRoute({
      method: 'POST',
      path: '/workspaces/:key/actions/activate',
      handler: async (ctx) => {
        await change(ctx, ctx.params.key!, () => ({ isActive: true }));
        return noContent();
      },
    }),

    companyRoute({
      method: 'POST',
      path: '/workspaces/actions/set-default/:key',
      handler: async (ctx) => {
        const cannot = () => badRequest('WORKSPACE_INACTIVE', 'An inactive workspace cannot be the default; activate it first');
        const doc = await find(ctx, ctx.params.key!);
        if (!doc.isActive) throw cannot();
        const previous = await companies.setDefaultWorkspace(doc.companyId, doc._id);
        // Undo if a deactivation raced with us (see deactivate).
        if (!(await workspaces.findById(doc._id))?.isActive) {
          if (previous !== undefined) await companies.setDefaultWorkspace(doc.companyId, previous, doc._id);
          await tenants.changed(doc.companyId);
          throw cannot();
        }
        await tenants.changed(doc.companyId);
        return noContent();
      },
    }),

    companyRoute({
      method: 'DELETE',
      path: '/workspaces/:key',
      handler: async (ctx) => {
        const doc = await find(ctx, ctx.params.key!);
        if (doc._id === ctx.tenant.company.defaultWorkspaceId) {
          throw badRequest('DEFAULT_WORKSPACE', 'The default workspace cannot be deleted');
        }
        // Deleting is irreversible: it must follow a deactivation, so nothing live disappears by one call.
        if (doc.isActive) throw badRequest('WORKSPACE_ACTIVE', 'Deactivate the workspace before deleting it');
        await workspaces.delete(doc._id);
        await tenants.changed(doc.companyId);
        return noContent();
      },
    }),
  ];
}
