import Type from 'typebox';
import { settingChange, validateHoldPeriod, type SettingChange } from '../domain/companySettings.js';
import { companyRoute, noContent, ok, type CompanyContext, type RouteDef } from '../http/route.js';
import type { AccountService } from '../services/accountService.js';
import { accountRecord } from './accountRecords.js';

const SettingBody = Type.Object({ key: Type.String({ minLength: 1 }), value: Type.Unknown() });
const HoldPeriodBody = Type.Object({ holdPeriodInMinutes: Type.Integer() });

export function accountRoutes(accounts: AccountService): RouteDef[] {
  async function save(ctx: CompanyContext, change: SettingChange) {
    await accounts.saveSetting(ctx.tenant.company._id, change);
    return noContent();
  }

  return [
    companyRoute({
      method: 'GET',
      path: '/accounts/me',
      summary: 'The account of the company admin key: keys, company and settings',
      answers: { 200: 'the account' },
      handler: (ctx) => ok(accountRecord(ctx.tenant.company, ctx.tenant.workspacesById.get(ctx.tenant.company.defaultWorkspaceId))),
    }),
    companyRoute({
      method: 'POST',
      path: '/accounts/me/settings',
      summary: 'Changes one company setting',
      answers: { 204: 'changed' },
      body: SettingBody,
      handler: (ctx) => save(ctx, settingChange(ctx.body.key, ctx.body.value)),
    }),
    companyRoute({
      method: 'POST',
      path: '/accounts/me/actions/change-hold-period',
      summary: 'Changes the default lifetime of new hold tokens',
      answers: { 204: 'changed' },
      body: HoldPeriodBody,
      handler: (ctx) => save(ctx, { path: 'holdPeriodInMinutes', value: validateHoldPeriod(ctx.body.holdPeriodInMinutes) }),
    }),
  ];
}
