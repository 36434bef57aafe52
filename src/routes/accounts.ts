import Type from 'typebox';
import { settingChange, validateHoldPeriod, type SettingChange } from '../domain/companySettings.js';
import { companyRoute, noContent, ok, type CompanyContext, type RouteDef } from '../http/route.js';
import type { AccountService } from '../services/accountService.js';
import { accountRecord } from './accountRecords.js';

const SettingBody = Type.Object({ key: Type.String({ minLength: 1 }), value: Type.Unknown() });
const HoldPeriodBody = Type.Object({ holdPeriodInMinutes: Type.Integer() });
// A bound on what gets hashed; no other rule on what a password is.
const PasswordBody = Type.Object({ password: Type.String({ minLength: 1, maxLength: 1000 }) }, { additionalProperties: false });

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
    // The old admin key stops working on every server process; the designer key is just replaced.
    ...(
      [
        ['secret-key', 'adminKey', 'secretKey'],
        ['designer-key', 'designerKey', 'designerKey'],
      ] as const
    ).map(([path, stored, answered]) =>
      companyRoute({
        method: 'POST',
        path: `/accounts/me/${path}/actions/regenerate`,
        summary: `A new ${path.replace('-', ' ')}; the old one stops working`,
        answers: { 200: `{${answered}}` },
        handler: async (ctx) => ok({ [answered]: await accounts.regenerateKey(ctx.tenant.company._id, stored) }),
      }),
    ),
    ...[true, false].map((enabled) =>
      companyRoute({
        method: 'POST',
        path: `/accounts/me/draft-chart-drawings/actions/${enabled ? 'enable' : 'disable'}`,
        summary: enabled ? 'Edits of charts in use go to a draft' : 'Edits of charts in use change the published drawing at once',
        answers: { 204: 'changed' },
        handler: (ctx) => save(ctx, { path: 'draftChartDrawingsEnabled', value: enabled }),
      }),
    ),
    companyRoute({
      method: 'POST',
      path: '/accounts/me/actions/change-password',
      summary: "Changes the account's password (kept only as a salted hash); the keys keep working",
      answers: { 204: 'changed' },
      body: PasswordBody,
      handler: async (ctx) => {
        await accounts.changePassword(ctx.tenant.company._id, ctx.body.password);
        return noContent();
      },
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
