import type { Db } from 'mongodb';
import { Companies, type CompanyDoc } from './companies.js';
import { Workspaces, type WorkspaceDoc } from './workspaces.js';

export interface Repositories {
  companies: Companies;
  workspaces: Workspaces;
}

export function repositories(db: Db): Repositories {
  return { companies: new Companies(db), workspaces: new Workspaces(db) };
}

/**
 * A company always has a default workspace. The workspace id is allocated first so the
 * company is written once, already pointing at it.
 */
export async function createCompany(repos: Repositories, name: string): Promise<{ company: CompanyDoc; workspace: WorkspaceDoc }> {
  const workspaceId = await repos.workspaces.allocateId();
  const company = await repos.companies.create(name, workspaceId);
  const workspace = await repos.workspaces.create({ id: workspaceId, companyId: company._id, name: 'Default workspace', isTest: false });
  return { company, workspace };
}
