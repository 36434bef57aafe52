import type { CompanyDoc, WorkspaceDoc } from '../domain/tenant.js';

// Response shapes shared by several routes (docs/seatsio-behaviour.md, "Workspaces", "Accounts and settings").

export interface WorkspaceRecord {
  id: number;
  name: string;
  key: string;
  secretKey: string;
  isDefault: boolean;
  isTest: boolean;
  isActive: boolean;
  settings: Record<string, unknown>;
}

export function workspaceRecord(doc: WorkspaceDoc, company: CompanyDoc): WorkspaceRecord {
  return {
    id: doc._id,
    name: doc.name,
    key: doc.key,
    secretKey: doc.secretKeys[0]!,
    isDefault: company.defaultWorkspaceId === doc._id,
    isTest: doc.isTest,
    isActive: doc.isActive,
    // Settings are per company here; a workspace shows the ones in force for it.
    settings: { ...company.settings },
  };
}

export function accountRecord(company: CompanyDoc, defaultWorkspace: WorkspaceDoc | undefined) {
  return {
    secretKey: company.adminKey,
    designerKey: company.designerKey,
    publicKey: defaultWorkspace?.key ?? null,
    email: `company-${company._id}@localhost`,
    role: 'OWNER',
    company: { id: company._id, name: company.name },
    settings: company.settings,
  };
}
