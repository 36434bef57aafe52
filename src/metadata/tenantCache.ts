import type { Principal, ResolvedKey, ResolvedPublicKey, Tenant, TenantKeys } from '../domain/tenant.js';
import type { Companies } from './companies.js';
import type { InvalidationBus } from './invalidationBus.js';
import type { Workspaces } from './workspaces.js';

// Resolves secret keys to who is calling, without a MongoDB read per request. A company
// is loaded whole (company record + all its workspaces and keys) the first time one of its
// keys is seen, then served from memory until an admin route changes it: that route calls
// `changed(companyId)`, which drops the company here and tells every other process through
// the invalidation bus. Unknown keys are remembered briefly so a client with a wrong key
// cannot turn every request into a MongoDB read; any change forgets them. Workspace public
// keys resolve the same way, for the legacy calls that authenticate with one (docs/api.md,
// "Legacy V1 interface").

const TOPIC = 'company';
const UNKNOWN_KEY_TTL_MS = 30_000;
const MAX_UNKNOWN_KEYS = 10_000;

/** Which company a kind of key belongs to, for every key of every loaded company, and the keys known not to exist. */
class KeyIndex {
  readonly owners = new Map<string, number>();
  private readonly unknown = new Map<string, number>();

  knownUnknown(key: string): boolean {
    const until = this.unknown.get(key);
    return until !== undefined && until > Date.now();
  }

  rememberUnknown(key: string): void {
    if (this.unknown.size >= MAX_UNKNOWN_KEYS) this.unknown.clear();
    this.unknown.set(key, Date.now() + UNKNOWN_KEY_TTL_MS);
  }

  drop(companyId: number): void {
    for (const [key, owner] of this.owners) if (owner === companyId) this.owners.delete(key);
    this.unknown.clear();
  }

  clear(): void {
    this.owners.clear();
    this.unknown.clear();
  }
}

export class TenantCache implements TenantKeys {
  /** secret key (admin or workspace) -> company id. */
  private readonly secretKeys = new KeyIndex();
  /** workspace public key -> company id. */
  private readonly publicKeys = new KeyIndex();
  private readonly tenants = new Map<number, Promise<Tenant | null>>();
  /** The companies loaded so far, for the synchronous look-up of resolveCached. */
  private readonly loadedTenants = new Map<number, Tenant>();

  constructor(
    private readonly companies: Companies,
    private readonly workspaces: Workspaces,
    private readonly bus: InvalidationBus,
  ) {
    bus.on(TOPIC, (message) => this.drop(Number(message.id)), () => this.clear());
  }

  async resolve(secretKey: string): Promise<ResolvedKey | undefined> {
    const tenant = await this.tenantOf(this.secretKeys, secretKey, (key) => this.findCompanyOfKey(key));
    const principal = tenant?.principals.get(secretKey);
    if (!tenant || !principal) {
      this.secretKeys.rememberUnknown(secretKey);
      return undefined;
    }
    return { principal, tenant };
  }

  /**
   * The key's company and principal when both are loaded already, without waiting for a
   * turn of the event loop (the priority lane asks on every request); undefined when not,
   * and resolve then answers, asking MongoDB where it must.
   */
  resolveCached(secretKey: string): ResolvedKey | undefined {
    const companyId = this.secretKeys.owners.get(secretKey);
    const tenant = companyId === undefined ? undefined : this.loadedTenants.get(companyId);
    const principal = tenant?.principals.get(secretKey);
    return tenant && principal ? { principal, tenant } : undefined;
  }

  /** resolvePublicKey for a key of a company loaded already, without waiting; undefined when only resolvePublicKey can tell. */
  resolvePublicKeyCached(publicKey: string): ResolvedPublicKey | undefined {
    const companyId = this.publicKeys.owners.get(publicKey);
    const tenant = companyId === undefined ? undefined : this.loadedTenants.get(companyId);
    const workspace = tenant?.workspacesByKey.get(publicKey);
    return tenant && workspace ? { tenant, workspace } : undefined;
  }

  /** The workspace a public key names, and its company. */
  async resolvePublicKey(publicKey: string): Promise<ResolvedPublicKey | undefined> {
    const tenant = await this.tenantOf(this.publicKeys, publicKey, async (key) => (await this.workspaces.findByPublicKey(key))?.companyId);
    const workspace = tenant?.workspacesByKey.get(publicKey);
    if (!tenant || !workspace) {
      this.publicKeys.rememberUnknown(publicKey);
      return undefined;
    }
    return { tenant, workspace };
  }

  /** The loaded company a key of `index` belongs to; MongoDB is asked only for a key not seen yet. */
  private async tenantOf(index: KeyIndex, key: string, findCompany: (key: string) => Promise<number | undefined>): Promise<Tenant | null> {
    let companyId = index.owners.get(key);
    if (companyId === undefined) {
      if (index.knownUnknown(key)) return null;
      companyId = await findCompany(key);
    }
    return companyId === undefined ? null : this.tenant(companyId);
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
            for (const key of tenant.principals.keys()) this.secretKeys.owners.set(key, companyId);
            for (const key of tenant.workspacesByKey.keys()) this.publicKeys.owners.set(key, companyId);
            this.loadedTenants.set(companyId, tenant);
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
    this.loadedTenants.delete(companyId);
    this.secretKeys.drop(companyId);
    this.publicKeys.drop(companyId);
  }

  private clear(): void {
    this.tenants.clear();
    this.loadedTenants.clear();
    this.secretKeys.clear();
    this.publicKeys.clear();
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
