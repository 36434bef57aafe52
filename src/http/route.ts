import type { TSchema, Static } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Logger } from 'pino';
import type { Principal, Tenant } from '../metadata/tenantCache.js';
import type { WorkspaceDoc } from '../metadata/workspaces.js';
import { ApiError } from '../domain/errors.js';
import type { Query } from './query.js';

// What a route is: method, path, who may call it, how its body is checked, and the
// handler. Handlers are plain async functions from a context to a reply, so they can be
// read without knowing uWebSockets.js.

/**
 * public: anyone (health, readiness, metrics).
 * system: Basic auth with SYSTEM_API_SECRET (tenant bootstrap).
 * company: the company admin key only; a workspace key gets 403.
 * workspace: a workspace secret key, or the admin key acting on X-Workspace-Key / the
 *            default workspace; fails while that workspace is inactive.
 */
export type AuthKind = 'public' | 'system' | 'company' | 'workspace';

export interface RequestHeaders {
  authorization: string;
  contentType: string;
  acceptEncoding: string;
  workspaceKey: string;
  host: string;
  ifNoneMatch: string;
}

export interface BaseContext<B = unknown> {
  requestId: string;
  params: Record<string, string>;
  query: Query;
  headers: RequestHeaders;
  body: B;
  rawBody: Buffer;
  log: Logger;
}

export interface CompanyContext<B = unknown> extends BaseContext<B> {
  tenant: Tenant;
  /** Who the key belongs to: the company admin, or one workspace. */
  principal: Principal;
}

export interface WorkspaceContext<B = unknown> extends CompanyContext<B> {
  workspace: WorkspaceDoc;
}

export interface Reply {
  status: number;
  /** JSON-serialised unless it is a Buffer or string (sent as is with `contentType`). */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

export const ok = (body: unknown): Reply => ({ status: 200, body });
export const noContent = (): Reply => ({ status: 204 });

export interface Validator {
  check(value: unknown): boolean;
  errors(value: unknown): { instancePath: string; message: string }[];
}

/** How a route reads its body when it differs from the server's defaults. */
export interface BodyOptions {
  /** A larger (or smaller) cap than MAX_BODY_BYTES, with the error to answer beyond it. */
  limit?: { bytes: number; error: () => ApiError };
  /** Parse the body as JSON whatever Content-Type says (clients that send drawings as text). */
  anyContentType?: boolean;
}

export interface RouteDef {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  auth: AuthKind;
  body?: Validator;
  bodyOptions?: BodyOptions;
  handler: (ctx: WorkspaceContext) => Promise<Reply> | Reply;
}

export function compile(schema: TSchema): Validator {
  const compiled = Compile(schema);
  return {
    check: (value) => compiled.Check(value),
    errors: (value) => compiled.Errors(value).map((e) => ({ instancePath: e.instancePath, message: e.message })),
  };
}

/** 400 GENERAL_ERROR naming every field of `value` the schema refuses (`#/name: must be string`). */
export function checkAgainst(validator: Validator, value: unknown): void {
  if (validator.check(value)) return;
  const details = validator
    .errors(value)
    .filter((e) => e.message !== 'schema is false')
    .map((e) => ({ code: 'GENERAL_ERROR', message: `#${e.instancePath}: ${e.message}` }));
  const [first, ...more] = details.length > 0 ? details : [{ code: 'GENERAL_ERROR', message: '#: invalid body' }];
  throw new ApiError(400, first!.code, first!.message, { more });
}

type Common = { method: RouteDef['method']; path: string; bodyOptions?: BodyOptions };

// One builder per auth kind so each handler sees exactly the context its auth provides.
export function publicRoute(def: Common & { handler: (ctx: BaseContext) => Promise<Reply> | Reply }): RouteDef {
  return { ...def, auth: 'public', handler: def.handler as RouteDef['handler'] };
}

export function systemRoute(def: Common & { handler: (ctx: BaseContext) => Promise<Reply> | Reply }): RouteDef {
  return { ...def, auth: 'system', handler: def.handler as RouteDef['handler'] };
}

export function companyRoute<S extends TSchema>(
  def: Common & { body?: S; handler: (ctx: CompanyContext<Static<S>>) => Promise<Reply> | Reply },
): RouteDef {
  return { ...def, auth: 'company', body: def.body && compile(def.body), handler: def.handler as RouteDef['handler'] };
}

export function workspaceRoute<S extends TSchema>(
  def: Common & { body?: S; handler: (ctx: WorkspaceContext<Static<S>>) => Promise<Reply> | Reply },
): RouteDef {
  return { ...def, auth: 'workspace', body: def.body && compile(def.body), handler: def.handler as RouteDef['handler'] };
}
