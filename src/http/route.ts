import type { Static, TObject, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { schemaMessages, type SchemaError } from './schemaMessages.js';
import type { Logger } from 'pino';
import type { Principal, Tenant, WorkspaceDoc } from '../domain/tenant.js';
import { ApiError } from '../domain/errors.js';
import type { Query } from './query.js';
import type { ContentCoding } from '../util/encodedBody.js';

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
  /** The body as sent, as text (UTF-8: a body that is not was refused before the handler). */
  bodyText: string;
  log: Logger;
  /** The caller's IP address (the TCP peer: a proxy in front shows as itself). */
  ip: string;
  /**
   * Counts this request against the company's concurrency limit of the route's lane (docs/operations.md,
   * "Concurrency limits") until it is done; throws 429 RATE_LIMIT_EXCEEDED past it. The HTTP
   * layer calls it for the routes it authenticates; routes that authenticate themselves (the
   * legacy calls) call it as soon as they know the company. A second call changes nothing.
   */
  countAgainst(companyId: number): void;
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
  /**
   * The Buffer body is in this content coding already, the route's choice: sent as is, with
   * its `Content-Encoding` (none for identity) and, unless the route is `alwaysGzip`,
   * `Vary: Accept-Encoding`, which a 304 carries too (src/http/encodedReply.ts).
   */
  encoding?: ContentCoding;
}

export const ok = (body: unknown): Reply => ({ status: 200, body });
const NO_CONTENT: Reply = Object.freeze({ status: 204 });
/** 204, the same frozen reply every time (the priority lane answers it thousands of times a second). */
export const noContent = (): Reply => NO_CONTENT;

export interface Validator {
  check(value: unknown): boolean;
  errors(value: unknown): SchemaError[];
}

/** How a route reads its body when it differs from the server's defaults. */
export interface BodyOptions {
  /** A larger (or smaller) cap than MAX_BODY_BYTES, with the error to answer beyond it. */
  limit?: { bytes: number; error: () => ApiError };
  /** Parse the body as JSON whatever Content-Type says (clients that send drawings as text). */
  anyContentType?: boolean;
}

/**
 * seats.io's two lanes (docs/operations.md, "Concurrency limits"): `priority` for the calls of the sales
 * flow (the sections of docs/api.md marked "priority lane": hold tokens, status changes, best
 * available, and the legacy calls that make them), `regular` for every other call.
 */
export type Lane = 'priority' | 'regular';

/** What a route answers when it succeeds: status code -> what the answer is. */
export type Answers = Partial<Record<200 | 201 | 204 | 304, string>>;

/** What a route says about itself for the API description (src/http/openapi.ts). */
export interface RouteDoc {
  /** One line: what the route does. */
  summary: string;
  answers: Answers;
  /** The media type of a successful answer's body, when not JSON. */
  produces?: string;
  /**
   * The query parameters the handler reads (each a string on the wire). Reading one that is
   * not declared here throws, so the description cannot drift from the handler.
   */
  query?: TObject;
  /**
   * The body, for routes that check it themselves (`body` is both checked and described).
   */
  bodyDoc?: TSchema;
  /** Error answers beyond those the auth kind implies (a key checked by the handler itself). */
  errors?: Record<number, string>;
  /**
   * Path parameters that carry a secret: request log lines show `***` in their place.
   * Metrics never see them (they label by route pattern).
   */
  secretParams?: readonly string[];
  /** The route's lane; the regular one unless it says `priority`. */
  lane?: Lane;
}

export interface RouteDef extends RouteDoc {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  auth: AuthKind;
  /** The body schema, checked before the handler runs. */
  bodySchema?: TSchema;
  body?: Validator;
  bodyOptions?: BodyOptions;
  /** Answer gzip whatever the request's Accept-Encoding and size (the reports: docs/reports.md, "Compression"). */
  alwaysGzip?: boolean;
  /** Names of `query`, for the check on every read. */
  queryNames: ReadonlySet<string>;
  handler: (ctx: WorkspaceContext) => Promise<Reply> | Reply;
  /** The direct way through for the route's plainest requests (DirectHandler); workspace routes only. */
  direct?: DirectHandler;
}

/** Who a workspace route's request comes from, once authenticated. */
export interface WorkspaceCaller {
  tenant: Tenant;
  workspace: WorkspaceDoc;
}

/**
 * The priority lane's direct way through (docs/performance.md, "The direct path"): called for a request
 * without a query string, of a key the server has loaded, with the body as parsed JSON, before
 * it is checked against the route's schema and before a context is made. It takes the
 * requests whose body is the plainest form the route accepts, answers them as the handler
 * would, through `done` (once: the reply, or the error to answer with), and returns true; it
 * may also throw the error at once. For any other request it returns false, having done
 * nothing, and the handler answers the request. So the handler stays the one definition of
 * what the route does, and the direct way is a shortcut through the same domain functions,
 * with no promise between Redis's reply and the answer.
 */
export type DirectHandler = (caller: WorkspaceCaller, params: Record<string, string>, body: unknown, remoteAddress: ArrayBuffer, done: DirectAnswer) => boolean;

/** Where the direct way answers its request: one of the two, once. */
export interface DirectAnswer {
  /** Answers the reply, or the error when there is one. */
  answer(error: unknown, reply?: Reply): void;
  /** Answers 204 No Content, or the error when there is one. */
  settled(error?: unknown): void;
}

export function compile(schema: TSchema): Validator {
  const compiled = Compile(schema);
  return {
    check: (value) => compiled.Check(value),
    errors: (value) =>
      compiled.Errors(value).map((e) => ({ keyword: e.keyword, instancePath: e.instancePath, schemaPath: e.schemaPath, params: { ...e.params }, message: e.message })),
  };
}

/**
 * 400 GENERAL_ERROR naming every field of `value` the schema refuses, worded like seats.io
 * (`#/name: expected type: String, found: Integer`; src/http/schemaMessages.ts).
 */
export function checkAgainst(validator: Validator, value: unknown): void {
  if (validator.check(value)) return;
  const details = schemaMessages(validator.errors(value), value).map((message) => ({ code: 'GENERAL_ERROR' as const, message }));
  const [first, ...more] = details.length > 0 ? details : [{ code: 'GENERAL_ERROR' as const, message: '#: invalid body' }];
  throw new ApiError(400, first!.code, first!.message, { more });
}

type Common = RouteDoc & { method: RouteDef['method']; path: string; bodyOptions?: BodyOptions; alwaysGzip?: boolean; direct?: DirectHandler };

function define<S extends TSchema>(auth: AuthKind, def: Common & { body?: S; handler: (ctx: never) => Promise<Reply> | Reply }): RouteDef {
  const { body, ...rest } = def;
  return {
    ...rest,
    auth,
    bodySchema: body,
    body: body && compile(body),
    queryNames: new Set(Object.keys(def.query?.properties ?? {})),
    handler: def.handler as RouteDef['handler'],
  };
}

// One builder per auth kind so each handler sees exactly the context its auth provides.
export function publicRoute(def: Common & { handler: (ctx: BaseContext) => Promise<Reply> | Reply }): RouteDef {
  return define('public', def);
}

export function systemRoute(def: Common & { handler: (ctx: BaseContext) => Promise<Reply> | Reply }): RouteDef {
  return define('system', def);
}

export function companyRoute<S extends TSchema>(
  def: Common & { body?: S; handler: (ctx: CompanyContext<Static<S>>) => Promise<Reply> | Reply },
): RouteDef {
  return define('company', def);
}

export function workspaceRoute<S extends TSchema>(
  def: Common & { body?: S; handler: (ctx: WorkspaceContext<Static<S>>) => Promise<Reply> | Reply },
): RouteDef {
  return define('workspace', def);
}
