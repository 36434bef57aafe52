import type { CompanyDoc, Companies } from './companies.js';
import type { InvalidationBus } from './invalidationBus.js';
import type { WorkspaceDoc, Workspaces } from './workspaces.js';

// Resolves secret keys to who is calling, without a MongoDB read per request. A company
// is loaded whole (company record + all its workspaces and keys) the first time one of its
// keys is seen, then served from memory until an admin route changes it: that route calls
// `changed(companyId)`, which drops the company here and tells every other process through
// the invalidation bus. Unknown keys are remembered briefly so a client with a wrong key
// cannot turn every request into a MongoDB read; any change forgets them.

export type Principal = { kind: 'admin'; companyId: number } | { kind: 'workspace'; companyId: number; workspaceId: number };

export interface Tenant {
  company: CompanyDoc;
  workspacesById: Map<number, WorkspaceDoc>;
  workspacesByKey: Map<string, WorkspaceDoc>;
  principals: Map<string, Principal>;
}

export interface ResolvedKey {
  principal: Principal;
  tenant: Tenant;
}

const TOPIC = 'company';
const UNKNOWN_KEY_TTL_MS = 30_000;
const MAX_UNKNOWN_KEYS = 10_000;

export class TenantCache {
  /** secret key -> company id, for every key of every loaded company. */
  private readonly keyIndex = new Map<string, number>();
  private readonly tenants = new Map<number, Promise<Tenant | null>>();
  private readonly unknownKeys = new Map<string, number>();

  constructor(
    private readonly companies: Companies,
    private readonly workspaces: Workspaces,
    private readonly bus: InvalidationBus,
  ) {
    bus.on(TOPIC, (message) => this.drop(Number(message.id)), () => this.clear());
  }

  async resolve(secretKey: string): Promise<ResolvedKey | undefined> {
    let companyId = this.keyIndex.get(secretKey);
    if (companyId === undefined) {
      const unknownUntil = this.unknownKeys.get(secretKey);
      if (unknownUntil !== undefined && unknownUntil > Date.now()) return undefined;
      companyId = await this.findCompanyOfKey(secretKey);
    }
    const tenant = companyId === undefined ? null : await this.tenant(companyId);
    const principal = tenant?.principals.get(secretKey);
    if (!tenant || !principal) {
      this.rememberUnknown(secretKey);
      return undefined;
    }
    return { principal, tenant };
  }

  private tenant(companyId: number): Promise<Tenant | null> {
    let loading = this.tenants.get(companyId);
    if (!loading) {
      loading = this.load(companyId);
      this.tenants.set(companyId, loading);
      loading.then(
        (tenant) => {
          // Index the keys only if no invalidation came in while we were reading.
          if (tenant && this.tenants.get(companyId) === loading) {
            for (const key of tenant.principals.keys()) this.keyIndex.set(key, companyId);
          }
          if (!tenant && this.tenants.get(companyId) === loading) this.tenants.delete(companyId);
        },
        () => {
          if (this.tenants.get(companyId) === loading) this.tenants.delete(companyId);
        },
      );
    }
    return loading;
  }

  /** Called by the admin route that changed a company; returns once other processes are told. */
  async changed(companyId: number): Promise<void> {
    this.drop(companyId);
    await this.bus.publish({ topic: TOPIC, id: companyId });
  }

  private drop(companyId: number): void {
    this.tenants.delete(companyId);
    for (const [key, owner] of this.keyIndex) if (owner === companyId) this.keyIndex.delete(key);
    this.unknownKeys.clear();
  }

  private clear(): void {
    this.tenants.clear();
    this.keyIndex.clear();
    this.unknownKeys.clear();
  }

  private rememberUnknown(secretKey: string): void {
    if (this.unknownKeys.size >= MAX_UNKNOWN_KEYS) this.unknownKeys.clear();
    this.unknownKeys.set(secretKey, Date.now() + UNKNOWN_KEY_TTL_MS);
  }

  private async findCompanyOfKey(secretKey: string): Promise<number | undefined> {
    const company = await this.companies.findByAdminKey(secretKey);
    if (company) return company._id;
    const workspace = await this.workspaces.findBySecretKey(secretKey);
    return workspace?.companyId;
  }

  private async load(companyId: number): Promise<Tenant | null> {
    const [company, workspaces] = await Promise.all([this.companies.findById(companyId), this.workspaces.findByCompany(companyId)]);
    if (!company) return null;
    const principals = new Map<string, Principal>([[company.adminKey, { kind: 'admin', companyId }]]);
    for (const workspace of workspaces) {
      for (const key of workspace.secretKeys) principals.set(key, { kind: 'workspace', companyId, workspaceId: workspace._id });
    }
    return {
      company,
      workspacesById: new Map(workspaces.map((w) => [w._id, w])),
      workspacesByKey: new Map(workspaces.map((w) => [w.key, w])),
      principals,
    };
  }
}
