import { ok, systemRoute, type RouteDef } from '../http/route.js';
import type { AccountService } from '../services/accountService.js';
import { accountRecord, workspaceRecord } from './accountRecords.js';

// Tenant bootstrap: how self-hosters create companies and how the official SDKs' test
// suites set themselves up (docs/seatsio-behaviour.md, "Test bootstrap"). Guarded by SYSTEM_API_SECRET.
export function systemRoutes(accounts: AccountService): RouteDef[] {
  return [
    systemRoute({
      method: 'POST',
      path: '/system/private/create-test-company',
      summary: 'Creates a company with its admin key and default workspace',
      answers: { 200: '{admin, workspace}' },
      handler: async () => {
        const { company, workspace } = await accounts.createCompany('Test company');
        return ok({ admin: accountRecord(company, workspace), workspace: workspaceRecord(workspace, company) });
      },
    }),
  ];
}
