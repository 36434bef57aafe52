import { createCompany, type Repositories } from '../metadata/repositories.js';
import { ok, systemRoute, type RouteDef } from '../http/route.js';
import { accountRecord, workspaceRecord } from './accountRecords.js';

// Tenant bootstrap: how self-hosters create companies and how the official SDKs' test
// suites set themselves up (compat-notes §8). Guarded by SYSTEM_API_SECRET.
export function systemRoutes(repos: Repositories): RouteDef[] {
  return [
    systemRoute({
      method: 'POST',
      path: '/system/private/create-test-company',
      handler: async () => {
        const { company, workspace } = await createCompany(repos, 'Test company');
        return ok({ admin: accountRecord(company, workspace), workspace: workspaceRecord(workspace, company) });
      },
    }),
  ];
}
