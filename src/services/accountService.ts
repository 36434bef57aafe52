import type { SettingChange } from '../domain/companySettings.js';
import { hashPassword } from '../domain/passwords.js';
import type { CompanyDoc, WorkspaceDoc } from '../domain/tenant.js';
import { createCompany, type Repositories } from '../metadata/repositories.js';
import type { TenantCache } from '../metadata/tenantCache.js';

// Companies and their settings (docs/seatsio-behaviour.md, "Accounts and settings" and
// "Test bootstrap"). A settings change reaches every server process through the tenant
// cache's invalidation.

export class AccountService {
  constructor(
    private readonly repos: Repositories,
    private readonly tenants: TenantCache,
  ) {}

  async saveSetting(companyId: number, change: SettingChange): Promise<void> {
    await this.repos.companies.saveSetting(companyId, change);
    await this.tenants.changed(companyId);
  }

  /**
   * A new admin or designer key. The old admin key stops working on every server process
   * as soon as they hear of the change (the tenant cache's invalidation).
   */
  async regenerateKey(companyId: number, which: 'adminKey' | 'designerKey'): Promise<string> {
    const key = await this.repos.companies.replaceKey(companyId, which);
    await this.tenants.changed(companyId);
    return key;
  }

  /**
   * Sets the account's password, stored only as a salted hash. Keys are not passwords: the
   * admin, designer and workspace keys keep working.
   */
  async changePassword(companyId: number, password: string): Promise<void> {
    await this.repos.companies.savePasswordHash(companyId, await hashPassword(password));
  }

  /** A new company with its default workspace (how self-hosters and SDK test suites start). */
  createCompany(name: string): Promise<{ company: CompanyDoc; workspace: WorkspaceDoc }> {
    return createCompany(this.repos, name);
  }
}
