import type { EventLog } from '../metadata/eventLog.js';
import { ApiError, badRequest, notFound } from '../domain/errors.js';
import { newKey } from '../domain/keys.js';
import type { Page, PageRequest } from '../domain/pagination.js';
import type { CompanyDoc, Tenant, WorkspaceDoc } from '../domain/tenant.js';
import type { Companies } from '../metadata/companies.js';
import { untilWritten } from '../metadata/conditionalWrite.js';
import type { TenantCache } from '../metadata/tenantCache.js';
import type { ActiveFilter, Workspaces } from '../metadata/workspaces.js';

// How workspaces change (docs/seatsio-behaviour.md, "Workspaces"). Every change reads the
// workspace fresh from MongoDB, writes it conditionally on its version (retrying on a
// concurrent change), then invalidates the tenant cache of every process, so a removed key
// or a deactivated workspace stops working everywhere at once.

const MAX_SECRET_KEYS = 10;

type Change = Partial<Pick<WorkspaceDoc, 'name' | 'isActive' | 'secretKeys'>>;

export class WorkspaceService {
  constructor(
    private readonly workspaces: Workspaces,
    private readonly companies: Companies,
    private readonly tenants: TenantCache,
    private readonly log: EventLog,
  ) {}

  async find(tenant: Tenant, key: string): Promise<WorkspaceDoc> {
    const doc = await this.workspaces.findByKey(tenant.company._id, key);
    if (!doc) throw notFound('WORKSPACE_NOT_FOUND', `Workspace not found: ${key} was not found in this company`);
    return doc;
  }

  /** A workspace of the company to copy into or from: 404 if unknown, 403 while inactive. */
  async findActive(tenant: Tenant, key: string): Promise<WorkspaceDoc> {
    const target = await this.find(tenant, key);
    if (!target.isActive) throw new ApiError(403, 'WORKSPACE_INACTIVE', `Workspace ${key} is inactive; activate it first`);
    return target;
  }

  list<T extends { id: number }>(
    company: CompanyDoc,
    filter: { filter: string | undefined; active: ActiveFilter },
    request: PageRequest,
    toItem: (doc: WorkspaceDoc) => T,
  ): Promise<Page<T>> {
    return this.workspaces.list(company._id, filter, request, toItem);
  }

  async create(company: CompanyDoc, name: string, isTest: boolean): Promise<WorkspaceDoc> {
    const doc = await this.workspaces.create({ companyId: company._id, name, isTest });
    await this.tenants.changed(company._id);
    await this.log.record(doc._id, 'workspace.created');
    return doc;
  }

  rename(tenant: Tenant, key: string, name: string): Promise<WorkspaceDoc> {
    return this.change(tenant, key, () => ({ name }));
  }

  /** Adds a secret key (at most 10 per workspace) and returns it. */
  async addSecretKey(tenant: Tenant, key: string): Promise<string> {
    const secretKey = newKey();
    await this.change(tenant, key, (doc) => {
      if (doc.secretKeys.length >= MAX_SECRET_KEYS) {
        throw badRequest('TOO_MANY_SECRET_KEYS', `A workspace has at most ${MAX_SECRET_KEYS} secret keys; remove one first`);
      }
      return { secretKeys: [...doc.secretKeys, secretKey] };
    });
    return secretKey;
  }

  async removeSecretKey(tenant: Tenant, key: string, secretKey: string): Promise<void> {
    await this.change(tenant, key, (doc) => {
      if (!doc.secretKeys.includes(secretKey)) throw badRequest('SECRET_KEY_NOT_FOUND', 'That secret key does not belong to this workspace');
      if (doc.secretKeys.length === 1) {
        throw badRequest('LAST_SECRET_KEY', 'Cannot remove the only secret key of a workspace; add a new one first');
      }
      return { secretKeys: doc.secretKeys.filter((k) => k !== secretKey) };
    });
  }

  /** For a compromised key: every existing secret key stops working, one new key replaces them. */
  async regenerateSecretKey(tenant: Tenant, key: string): Promise<string> {
    const secretKey = newKey();
    await this.change(tenant, key, () => ({ secretKeys: [secretKey] }));
    return secretKey;
  }

  async deactivate(tenant: Tenant, key: string): Promise<void> {
    const cannot = () => badRequest('DEFAULT_WORKSPACE', 'The default workspace cannot be deactivated; make another workspace the default first');
    const doc = await this.change(tenant, key, (current) => {
      if (current._id === tenant.company.defaultWorkspaceId) throw cannot();
      return { isActive: false };
    });
    // Company and workspace are two documents: a set-default racing with this call may
    // have made it the default meanwhile. Re-check fresh and undo (set-default does the same).
    if ((await this.companies.findById(doc.companyId))?.defaultWorkspaceId === doc._id) {
      await this.change(tenant, key, () => ({ isActive: true }));
      throw cannot();
    }
  }

  async activate(tenant: Tenant, key: string): Promise<void> {
    await this.change(tenant, key, () => ({ isActive: true }));
  }

  async setDefault(tenant: Tenant, key: string): Promise<void> {
    const cannot = () => badRequest('WORKSPACE_INACTIVE', 'An inactive workspace cannot be the default; activate it first');
    const doc = await this.find(tenant, key);
    if (!doc.isActive) throw cannot();
    const previous = await this.companies.setDefaultWorkspace(doc.companyId, doc._id);
    // Undo if a deactivation raced with us (see deactivate).
    if (!(await this.workspaces.findById(doc._id))?.isActive) {
      if (previous !== undefined) await this.companies.setDefaultWorkspace(doc.companyId, previous, doc._id);
      await this.tenants.changed(doc.companyId);
      throw cannot();
    }
    await this.tenants.changed(doc.companyId);
  }

  async delete(tenant: Tenant, key: string): Promise<void> {
    const doc = await this.find(tenant, key);
    if (doc._id === tenant.company.defaultWorkspaceId) {
      throw badRequest('DEFAULT_WORKSPACE', 'The default workspace cannot be deleted');
    }
    // Deleting is irreversible: it must follow a deactivation, so nothing live disappears by one call.
    if (doc.isActive) throw badRequest('WORKSPACE_ACTIVE', 'Deactivate the workspace before deleting it');
    await this.workspaces.delete(doc._id);
    await this.tenants.changed(doc.companyId);
  }

  /** Applies `decide` to the current workspace until the conditional write wins. */
  private change(tenant: Tenant, key: string, decide: (doc: WorkspaceDoc) => Change): Promise<WorkspaceDoc> {
    return untilWritten(`Workspace ${key}`, async () => {
      const doc = await this.find(tenant, key);
      const fields = decide(doc);
      if (!(await this.workspaces.updateIfUnchanged(doc, fields))) return undefined;
      await this.tenants.changed(doc.companyId);
      return { ...doc, ...fields };
    });
  }
}
