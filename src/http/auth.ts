import { timingSafeEqual } from 'node:crypto';
import { ApiError, type ErrorCode } from '../domain/errors.js';
import type { Principal, ResolvedKey, Tenant, TenantKeys, WorkspaceDoc } from '../domain/tenant.js';
import type { AuthKind, RequestHeaders, WorkspaceCaller } from './route.js';

// Authentication as seats.io has it (docs/seatsio-behaviour.md, "Conventions"): HTTP Basic with the secret key as user name and the
// password ignored. Keys resolve from the in-process tenant cache, never MongoDB per request.
// The legacy calls (docs/api.md, "Legacy V1 interface") carry their key in the body or the path
// instead, and resolve it through the same functions here.

export interface Caller {
  tenant?: Tenant;
  principal?: Principal;
  workspace?: WorkspaceDoc;
}

const unauthorized = (message: string) => new ApiError(401, 'UNAUTHORIZED', message);
const forbidden = (code: ErrorCode, message: string) => new ApiError(403, code, message);

/** Authorization headers seen lately and their user names: a client sends the same one on every request. */
const decodedUsers = new Map<string, string | undefined>();
const MAX_DECODED_USERS = 1024;

/** The user name of a Basic authorization header, or undefined. */
export function basicUser(authorization: string): string | undefined {
  let user = decodedUsers.get(authorization);
  if (user === undefined && !decodedUsers.has(authorization)) {
    if (decodedUsers.size >= MAX_DECODED_USERS) decodedUsers.clear();
    decodedUsers.set(authorization, (user = decodeBasicUser(authorization)));
  }
  return user;
}

function decodeBasicUser(authorization: string): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(authorization);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon === -1 ? decoded : decoded.slice(0, colon);
  return user === '' ? undefined : user;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function authenticate(
  kind: AuthKind,
  headers: RequestHeaders,
  tenants: TenantKeys,
  systemApiSecret: string | undefined,
): Promise<Caller> {
  if (kind === 'public') return {};
  const secret = basicUser(headers.authorization);
  if (secret === undefined) {
    throw unauthorized('Authenticate with HTTP Basic auth: the secret key as user name, empty password');
  }
  if (kind === 'system') {
    if (systemApiSecret === undefined || !sameSecret(secret, systemApiSecret)) throw unauthorized('Unknown system API secret');
    return {};
  }
  const resolved = tenants.resolveCached(secret) ?? (await tenants.resolve(secret));
  if (!resolved) throw unauthorized('Unknown secret key');
  return callerOf(kind, resolved, headers.workspaceKey);
}

const NO_CALLER: Caller = Object.freeze({});

/**
 * authenticate's answer without waiting, when it needs nothing loaded (every request of a
 * company after its first): the caller, or an error thrown as authenticate throws it;
 * undefined when only authenticate can tell (a key not loaded yet, a missing header, the
 * system secret). The priority lane runs on this.
 */
export function authenticateCached(kind: AuthKind, headers: RequestHeaders, tenants: TenantKeys): Caller | undefined {
  if (kind === 'public') return NO_CALLER;
  if (kind === 'system') return undefined;
  const secret = basicUser(headers.authorization);
  const resolved = secret === undefined ? undefined : tenants.resolveCached(secret);
  return resolved && callerOf(kind, resolved, headers.workspaceKey);
}

function callerOf(kind: 'company' | 'workspace', resolved: ResolvedKey, workspaceKey: string): Caller {
  const { principal, tenant } = resolved;
  if (kind === 'company') {
    if (principal.kind !== 'admin') throw forbidden('FORBIDDEN', 'This call needs the company admin key, not a workspace secret key');
    return { tenant, principal };
  }
  return { tenant, principal, workspace: workspaceOf(resolved, workspaceKey) };
}

/** The workspace a key acts on: a workspace key's own; the admin key's named by `workspaceKey`, else the default. */
function workspaceOf({ principal, tenant }: ResolvedKey, workspaceKey: string): WorkspaceDoc {
  let workspace: WorkspaceDoc | undefined;
  if (principal.kind === 'admin') {
    workspace = workspaceKey ? tenant.workspacesByKey.get(workspaceKey) : tenant.workspacesById.get(tenant.company.defaultWorkspaceId);
    if (!workspace) throw forbidden('WORKSPACE_NOT_FOUND', `X-Workspace-Key ${workspaceKey} is not a workspace of this company`);
  } else {
    workspace = tenant.workspacesById.get(principal.workspaceId);
    if (!workspace) throw unauthorized('Unknown secret key');
    if (workspaceKey && workspaceKey !== workspace.key) {
      throw forbidden('FORBIDDEN', 'X-Workspace-Key names another workspace than the one of this secret key');
    }
  }
  return active(workspace);
}

function active(workspace: WorkspaceDoc): WorkspaceDoc {
  if (!workspace.isActive) {
    throw forbidden('WORKSPACE_INACTIVE', `Workspace ${workspace.key} is inactive; activate it first`);
  }
  return workspace;
}

/**
 * A secret key sent in a body or path rather than in Basic auth: the workspace it acts on,
 * exactly as for a workspace-level route called without X-Workspace-Key.
 */
export async function workspaceOfSecretKey(secret: string, tenants: TenantKeys): Promise<WorkspaceCaller> {
  const resolved = await tenants.resolve(secret);
  if (!resolved) throw unauthorized('Unknown secret key');
  return { tenant: resolved.tenant, workspace: workspaceOf(resolved, '') };
}

/** The active workspace a public key names (401 for an unknown one). */
export async function workspaceOfPublicKey(publicKey: string, tenants: TenantKeys): Promise<WorkspaceCaller> {
  const resolved = await tenants.resolvePublicKey(publicKey);
  if (!resolved) throw unauthorized('Unknown public key');
  return { tenant: resolved.tenant, workspace: active(resolved.workspace) };
}

/** workspaceOfPublicKey for a key whose company is loaded, without waiting; undefined when only it can tell. */
export function workspaceOfPublicKeyCached(publicKey: string, tenants: TenantKeys): WorkspaceCaller | undefined {
  const resolved = tenants.resolvePublicKeyCached(publicKey);
  return resolved && { tenant: resolved.tenant, workspace: active(resolved.workspace) };
}
