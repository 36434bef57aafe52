import type { CompanySettings } from './companySettings.js';

// Who calls: a company, its workspaces and the keys that name them, as MongoDB stores them
// (src/metadata/companies.ts, workspaces.ts) and the tenant cache holds them
// (src/metadata/tenantCache.ts). Here, below both, so that authentication (src/http/auth.ts)
// and the routes name them without importing the metadata layer.

export interface CompanyDoc {
  _id: number;
  name: string;
  adminKey: string;
  designerKey: string;
  /** The single source of which workspace is the default: one field, one atomic write. */
  defaultWorkspaceId: number;
  settings: CompanySettings;
  createdOn: Date;
  /** The account's password as a salted hash (src/domain/passwords.ts); absent until one is set. */
  passwordHash?: string;
}

export interface WorkspaceDoc {
  _id: number;
  companyId: number;
  name: string;
  /** Public key: names the workspace in X-Workspace-Key and URLs. */
  key: string;
  /** Several at once so keys can be rotated without downtime; the first is the primary. */
  secretKeys: string[];
  isTest: boolean;
  isActive: boolean;
  createdOn: Date;
  /** Bumped on every change; updates are conditional on it so concurrent edits never lose one. */
  version: number;
}

export type Principal = { kind: 'admin'; companyId: number } | { kind: 'workspace'; companyId: number; workspaceId: number };

/** A company loaded whole: its record, its workspaces and every secret key's principal. */
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

export interface ResolvedPublicKey {
  tenant: Tenant;
  workspace: WorkspaceDoc;
}

/**
 * Keys resolved to who is calling, as authentication asks for them; the tenant cache
 * (src/metadata/tenantCache.ts) is the one that does it.
 */
export interface TenantKeys {
  resolve(secretKey: string): Promise<ResolvedKey | undefined>;
  /** resolve's answer without waiting, when the key's company is loaded already; else undefined. */
  resolveCached(secretKey: string): ResolvedKey | undefined;
  /** The workspace a public key names, and its company. */
  resolvePublicKey(publicKey: string): Promise<ResolvedPublicKey | undefined>;
  /** resolvePublicKey's answer without waiting, when the key's company is loaded already; else undefined. */
  resolvePublicKeyCached(publicKey: string): ResolvedPublicKey | undefined;
}
