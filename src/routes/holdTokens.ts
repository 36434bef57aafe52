import Type from 'typebox';
import { MAX_HOLD_PERIOD_MINUTES } from '../domain/companySettings.js';
import type { HoldToken } from '../inventory/holdTokenStore.js';
import type { Tenant, WorkspaceDoc } from '../domain/tenant.js';
import type { HoldTokenService } from '../services/holdTokenService.js';
import { compile, ok, workspaceRoute, type DirectHandler, type RouteDef, type WorkspaceContext } from '../http/route.js';

// Hold tokens (docs/seatsio-behaviour.md, "Hold tokens"; their expiry: docs/hold-expiry.md).
// Priority lane (docs/operations.md, "Concurrency limits"): Redis only, no MongoDB.

/** Also the optional body of the legacy reservation token call. */
export const CreateHoldTokenBody = Type.Object({ expiresInMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_HOLD_PERIOD_MINUTES })) });
const ChangeBody = Type.Object({ expiresInMinutes: Type.Integer({ minimum: 0, maximum: MAX_HOLD_PERIOD_MINUTES }) });

/** A hold token as the routes answer it. */
function holdTokenRecord(token: HoldToken, workspaceKey: string, now: number) {
  return {
    holdToken: token.token,
    expiresAt: new Date(token.expiresAt).toISOString(),
    expiresInSeconds: Math.max(0, Math.floor((token.expiresAt - now) / 1000)),
    workspaceKey,
  };
}

/** A new token of the workspace, living `expiresInMinutes` or the company's hold period. */
export async function createHoldToken(holdTokens: HoldTokenService, caller: { tenant: Tenant; workspace: WorkspaceDoc }, expiresInMinutes: number | undefined) {
  const now = Date.now();
  const minutes = expiresInMinutes ?? caller.tenant.company.settings.holdPeriodInMinutes;
  return holdTokenRecord(await holdTokens.create(caller.workspace._id, minutes, now), caller.workspace.key, now);
}

const record = (token: HoldToken, ctx: WorkspaceContext, now: number) => holdTokenRecord(token, ctx.workspace.key, now);

/** The create body's schema, compiled once for the direct way (its range is the schema's, not repeated here). */
const createBody = compile(CreateHoldTokenBody);

/**
 * The `expiresInMinutes` of the plainest bodies a token is made from, `{}` or
 * `{"expiresInMinutes": n}` that the schema takes: the minutes, undefined for none, or
 * null for any other body (the handler checks and words it).
 */
function plainMinutes(body: unknown): number | undefined | null {
  // No body is `{}` (checkBody).
  if (body === undefined) return undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  for (const name in body) if (name !== 'expiresInMinutes') return null;
  return createBody.check(body) ? (body as { expiresInMinutes?: number }).expiresInMinutes : null;
}

export function holdTokenRoutes(holdTokens: HoldTokenService): RouteDef[] {
  /** The direct way through (route.ts, DirectHandler): what the handler below does with a plain body, without a context or a promise of its own. */
  const createDirect: DirectHandler = (caller, _params, body, _remoteAddress, done) => {
    const minutes = plainMinutes(body);
    if (minutes === null) return false;
    createHoldToken(holdTokens, caller, minutes).then(
      (token) => done.answer(undefined, ok(token)),
      (error: unknown) => done.answer(error),
    );
    return true;
  };

  return [
    workspaceRoute({
      lane: 'priority',
      method: 'POST',
      path: '/hold-tokens',
      summary: 'Creates a hold token',
      answers: { 200: 'the hold token' },
      body: CreateHoldTokenBody,
      direct: createDirect,
      handler: async (ctx) => ok(await createHoldToken(holdTokens, ctx, ctx.body.expiresInMinutes)),
    }),
    workspaceRoute({
      lane: 'priority',
      method: 'GET',
      path: '/hold-tokens/:token',
      summary: 'One hold token',
      answers: { 200: 'the hold token' },
      handler: async (ctx) => {
        const now = Date.now();
        return ok(record(await holdTokens.get(ctx.workspace._id, ctx.params.token!, now), ctx, now));
      },
    }),
    workspaceRoute({
      lane: 'priority',
      method: 'POST',
      path: '/hold-tokens/:token',
      summary: 'Changes when a hold token expires',
      answers: { 200: 'the hold token' },
      body: ChangeBody,
      handler: async (ctx) => {
        const now = Date.now();
        const token = await holdTokens.changeExpiry(ctx.workspace._id, ctx.params.token!, ctx.body.expiresInMinutes, now);
        return ok(record(token, ctx, now));
      },
    }),
  ];
}
