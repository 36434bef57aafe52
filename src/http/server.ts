import { STATUS_CODES } from 'node:http';
import { constants as zlibConstants, gzip } from 'node:zlib';
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors.js';
import type { TenantKeys } from '../domain/tenant.js';
import { authenticate, authenticateCached, type Caller } from './auth.js';
import { errorBodyJson } from './errorBody.js';
import { serveWebSocket, type WebSocketRoute } from './webSocketRoute.js';
import type { ConcurrencyLimits } from './concurrencyLimits.js';
import type { Metrics } from './metrics.js';
import { Query } from './query.js';
import { Exchange, NO_SLOT, type ExchangeAnswerer } from './exchange.js';
import { redactedPath } from './redaction.js';
import { ReceivedHeaders } from './requestHeaders.js';
import { qualityOf } from './encodedReply.js';
import type { ContentCoding } from '../util/encodedBody.js';
import { RequestIds } from './requestIds.js';
import { bodyText, checkBody, readJson } from './requestBody.js';
import { RequestContext, type ExchangeOwner } from './requestContext.js';
import type { Reply, RouteDef, WorkspaceCaller, WorkspaceContext } from './route.js';
import type { Match as RouteMatch, RouteTable } from './routeTable.js';
import type { ServerStatus } from './serverStatus.js';
import type { UwsModule } from './uws.js';

// The uWebSockets.js glue. Per request: capture headers synchronously (uWS frees the
// request object when the handler returns), register onAborted, read the body with a cap,
// then route -> authenticate -> count against the company's concurrency limit -> parse and
// validate -> handler -> one corked write. The parts around it: exchange.ts (what is
// tracked per request, and where the direct way answers), requestHeaders.ts (what is read of
// the headers), requestIds.ts, auth.ts, requestBody.ts (parsing and checking the body),
// requestContext.ts (what a handler sees), redaction.ts (what may be logged of a path),
// clientIp.ts, metrics.ts, concurrencyLimits.ts, errorBody.ts. A request of a company whose
// keys are loaded, on an event the catalog has, goes from its body to its script call
// without waiting for anything but Redis.

const GZIP_MIN_BYTES = 1024;
/** Bodies this large are compressed at zlib's fastest level: a 50 MB report would take seconds at the default. */
const GZIP_FAST_BYTES = 1024 * 1024;

/**
 * A body's size in bytes as sent (UTF-8), as far as the gzip thresholds need it: a text body
 * is handed to uWS as it is (it writes the UTF-8 itself), so the common JSON answer is never
 * copied into a Buffer first; its exact size is only counted when it could fall either side
 * of GZIP_MIN_BYTES (a UTF-16 unit is at most 3 bytes of UTF-8).
 */
export function bodyBytes(payload: Buffer | string): number {
  if (typeof payload !== 'string' || payload.length >= GZIP_MIN_BYTES || payload.length * 3 < GZIP_MIN_BYTES) return payload.length;
  return Buffer.byteLength(payload);
}

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

export interface HttpServerOptions {
  uws: UwsModule;
  routes: RouteTable<RouteDef>;
  status: ServerStatus;
  tenants: TenantKeys;
  metrics: Metrics;
  /** Requests in flight per company and lane, refused past the limits (docs/operations.md, "Concurrency limits"). */
  concurrency: ConcurrencyLimits;
  logger: Logger;
  maxBodyBytes: number;
  systemApiSecret: string | undefined;
  /** Registers the WebSocket routes (the status stream) on the app. */
  /** WebSocket routes (src/http/webSocketRoute.ts). */
  webSockets?: WebSocketRoute<any>[];
  /** The answer for an error a store raised when it could not be reached (503), if it is one. */
  outageAnswer?: (error: unknown) => ApiError | undefined;
}

export class HttpServer implements ExchangeOwner, ExchangeAnswerer {
  private readonly app: TemplatedApp;
  private listenSocket: us_listen_socket | undefined;
  private lastRequestAt = 0;
  private idleWaiters: (() => void)[] = [];
  readonly requestIds = new RequestIds();
  /** Whether the log takes a line per request (info level): when it does not, the line is not even built. */
  private readonly logsRequests: boolean;

  constructor(private readonly options: HttpServerOptions) {
    this.logsRequests = options.logger.isLevelEnabled('info');
    this.defaultLimit = { bytes: options.maxBodyBytes, error: () => this.tooLarge() };
    this.app = options.uws.App();
    // WebSocket routes first: uWS hands a request that is no upgrade on to the routes below.
    for (const route of options.webSockets ?? []) serveWebSocket(this.app, route, options.outageAnswer);
    this.app.any('/*', (res, req) => this.onRequest(res, req));
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.app.listen(host, port, (socket) => {
        if (!socket) return reject(new Error(`cannot listen on ${host}:${port} (port in use or not allowed)`));
        this.listenSocket = socket;
        resolve(this.options.uws.us_socket_local_port(socket));
      });
    });
  }

  get inFlightRequests(): number {
    return this.options.status.inFlight;
  }

  /**
   * First step of a shutdown: keep accepting, but answer with `Connection: close` (and /ready
   * with 503) until no new request has come for `quietMs`, at most `maxMs`. Closing the
   * listen socket at once would reset connections the kernel already accepted for us but
   * uWS had not picked up yet: requests the client sees as sent, lost without an answer.
   */
  async drainAccepted(quietMs: number, maxMs: number): Promise<void> {
    this.options.status.draining = true;
    const deadline = performance.now() + maxMs;
    this.lastRequestAt = Math.max(this.lastRequestAt, performance.now());
    for (;;) {
      const now = performance.now();
      const quietUntil = this.lastRequestAt + quietMs;
      if (now >= quietUntil || now >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(quietUntil, deadline) - now));
    }
  }

  /** Stops accepting connections; requests already received run to their end. */
  stopAccepting(): void {
    this.options.status.draining = true;
    if (this.listenSocket) this.options.uws.us_listen_socket_close(this.listenSocket);
    this.listenSocket = undefined;
  }

  /** Resolves true when no request is in flight, false if `timeoutMs` passes first. */
  waitForIdle(timeoutMs: number): Promise<boolean> {
    if (this.options.status.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /** Closes every remaining connection (idle keep-alive ones included). */
  closeConnections(): void {
    // close() exists on the native App of uWS v20.30 but is missing from its typings.
    (this.app as TemplatedApp & { close(): void }).close();
  }

  private onRequest(res: HttpResponse, req: HttpRequest): void {
    const headers = new ReceivedHeaders(req);
    const givenId = headers.requestId;
    const takesGivenId = givenId !== '' && REQUEST_ID_PATTERN.test(givenId);
    const method = upperMethod(req.getMethod());
    const path = req.getUrl();
    // Routing is synchronous and cheap: done before the body so a route can set its own cap.
    const match = this.options.routes.match(method, path);
    const ex = new Exchange(
      this,
      res,
      method,
      // Redacted before anything can log it (a 413 below is logged too).
      redactedPath(path, match),
      req.getQuery() ?? '',
      headers,
      takesGivenId ? givenId : undefined,
      takesGivenId ? 0 : this.requestIds.next(),
      (this.lastRequestAt = performance.now()),
      match.kind === 'found' && match.value.alwaysGzip === true,
    );
    this.options.status.inFlight++;
    this.receive(ex, match);
    // uWS needs an abort handler for a request still open when this returns (a body to come,
    // a handler that waits); one answered at once (/health, a cached GET) goes without. Its
    // headers and the peer's address are kept then too: uWS lets go of the request object.
    if (!ex.finished) {
      ex.keep();
      res.onAborted(() => {
        ex.aborted = true;
        this.finish(ex, 499);
      });
    }
  }

  /** Reads the request's body, with the route's cap, and dispatches it; refuses a body whose framing is wrong. */
  private receive(ex: Exchange, match: RouteMatch<RouteDef>): void {
    const { headers } = ex;
    const { contentLength } = headers;
    const chunked = headers.transferEncoding !== '';
    const limit = (match.kind === 'found' && match.value.bodyOptions?.limit) || this.defaultLimit;
    // A repeated Content-Length (src/http/requestHeaders.ts).
    if (headers.contentLengths > 1) return this.sendError(ex, new ApiError(400, 'GENERAL_ERROR', 'More than one Content-Length header'), true);
    const declared = contentLength === '' ? 0 : Number(contentLength);
    if (!Number.isSafeInteger(declared) || declared < 0) {
      return this.sendError(ex, new ApiError(400, 'GENERAL_ERROR', 'Content-Length is not a number'), true);
    }
    if (declared > limit.bytes) return this.sendError(ex, limit.error(), true);
    if (declared === 0 && !chunked) {
      this.dispatch(ex, match, '');
      return;
    }

    // Most bodies come in one chunk: a list is made only for a second one.
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    let received = 0;
    ex.res.onData((chunk, isLast) => {
      if (ex.finished) return;
      received += chunk.byteLength;
      if (received > limit.bytes) return this.sendError(ex, limit.error(), true);
      // uWS takes the chunk's memory back after this callback returns: a body in one piece
      // is read as text now, through a view; the pieces of a longer one are copied.
      if (isLast && first === undefined) return this.dispatch(ex, match, bodyText(Buffer.from(chunk)));
      const copy = Buffer.copyBytesFrom(new Uint8Array(chunk));
      if (first === undefined) first = copy;
      else (more ??= [first]).push(copy);
      if (isLast) this.dispatch(ex, match, bodyText(more ? Buffer.concat(more) : first));
    });
  }

  /** The body cap of routes that set none. */
  private readonly defaultLimit: { bytes: number; error: () => ApiError };

  private tooLarge(): ApiError {
    return new ApiError(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds ${this.options.maxBodyBytes} bytes`);
  }

  /**
   * Routes and authenticates the request, then serves it. Synchronous for a loaded company's
   * key (every request after its first): only what waits for something (an unloaded key, a
   * handler's promise) makes a promise.
   */
  private dispatch(ex: Exchange, match: RouteMatch<RouteDef>, body: string | null): void {
    try {
      if (match.kind === 'notFound') throw new ApiError(404, 'NOT_FOUND', `No route for ${ex.method} ${ex.path}`);
      if (match.kind === 'methodNotAllowed') {
        ex.route = `* ${match.pattern}`;
        throw new ApiError(405, 'METHOD_NOT_ALLOWED', `${ex.method} is not allowed on ${ex.path}; use ${match.allowed.join(', ')}`, {
          headers: { Allow: match.allowed.join(', ') },
        });
      }
      const route = match.value;
      ex.route = match.label;
      const cached = authenticateCached(route.auth, ex.headers, this.options.tenants);
      if (cached) return this.serve(ex, route, match.params, cached, body);
      authenticate(route.auth, ex.headers, this.options.tenants, this.options.systemApiSecret).then(
        (caller) => this.serve(ex, route, match.params, caller, body),
        (error: unknown) => this.conclude(ex, error, undefined),
      );
    } catch (error) {
      this.conclude(ex, error, undefined);
    }
  }

  /** An authenticated request, from its place in the lane to its answer. */
  /** `text`: the body's text, null when it is not UTF-8 (requestBody.ts, bodyText). */
  private serve(ex: Exchange, route: RouteDef, params: Record<string, string>, caller: Caller, text: string | null): void {
    let answer: Reply | Promise<Reply>;
    try {
      ex.lane = route.lane ?? 'regular';
      if (caller.principal) this.countAgainst(ex, caller.principal.companyId);
      const json = readJson(route, ex.headers.contentType, text);
      // The priority lane's plainest requests (route.ts, DirectHandler): no context, no schema
      // check; the direct way answers through its callback, later.
      if (
        route.direct !== undefined &&
        caller.workspace !== undefined &&
        caller.tenant !== undefined &&
        ex.rawQuery === '' &&
        route.direct(caller as WorkspaceCaller, params, json, ex.remoteAddress, ex)
      )
        return;
      const body = checkBody(route, json);
      // readJson refused a body that is not UTF-8 (null): the text is there.
      const ctx = new RequestContext(this, ex, params, new Query(ex.rawQuery, route.queryNames), body, text!, caller);
      answer = route.handler(ctx as unknown as WorkspaceContext);
    } catch (error) {
      return this.conclude(ex, error, undefined);
    }
    // A handler that answers without waiting is answered in this same turn.
    if (answer instanceof Promise) answer.then((reply) => this.conclude(ex, undefined, reply), (error: unknown) => this.conclude(ex, error, undefined));
    else this.conclude(ex, undefined, answer);
  }

  /** The request's answer, the reply or the error (an error making the reply answers 500); nothing works on it after. */
  conclude(ex: Exchange, error: unknown, reply: Reply | undefined): void {
    try {
      if (reply) this.sendReply(ex, reply);
      else this.sendError(ex, error);
    } catch (failure) {
      this.sendError(ex, failure);
    } finally {
      this.handled(ex);
    }
  }

  /** Nothing works on the request any more: its place is given back once it is answered too. */
  private handled(ex: Exchange): void {
    ex.handled = true;
    this.giveBackSlot(ex);
  }

  /** A place in the company's lane for this request until it is done (at most one); throws 429 past the limit. */
  countAgainst(ex: Exchange, companyId: number): void {
    if (ex.slotCompany !== NO_SLOT) return;
    if (this.options.concurrency.take(companyId, ex.lane)) ex.slotCompany = companyId;
  }

  /** A handler's log, with the request's id. */
  loggerFor(ex: Exchange): Logger {
    return this.options.logger.child({ requestId: ex.requestId });
  }

  /**
   * Gives the request's place back once it is both answered (or aborted) and no longer worked
   * on, whichever comes last: an aborted request's handler runs on, and a client that
   * disconnects must not free a place for more work than the limit allows.
   */
  private giveBackSlot(ex: Exchange): void {
    if (ex.slotCompany === NO_SLOT || !ex.finished || !ex.handled) return;
    this.options.concurrency.give(ex.slotCompany, ex.lane);
    ex.slotCompany = NO_SLOT;
  }

  private sendReply(ex: Exchange, reply: Reply): void {
    const { body } = reply;
    if (body === undefined || reply.status === 204 || reply.status === 304) {
      // A 304 of a route that chose the coding varies as its 200 does.
      if (reply.status === 304 && reply.encoding !== undefined) return this.writeNow(ex, 304, undefined, undefined, reply.headers, false, { coding: 'identity', varies: !ex.alwaysGzip });
      return this.write(ex, reply.status, undefined, undefined, reply.headers);
    }
    if (Buffer.isBuffer(body) && reply.encoding !== undefined) {
      return this.writeNow(ex, reply.status, reply.contentType ?? 'application/octet-stream', body, reply.headers, false, { coding: reply.encoding, varies: !ex.alwaysGzip });
    }
    if (Buffer.isBuffer(body) || typeof body === 'string') {
      return this.write(ex, reply.status, reply.contentType ?? 'application/octet-stream', body, reply.headers);
    }
    this.write(ex, reply.status, 'application/json', JSON.stringify(body), reply.headers);
  }

  /** What the client is told: the error itself, 503 for an unreachable store, else a logged 500. */
  private apiErrorOf(ex: Exchange, error: unknown): ApiError {
    if (error instanceof ApiError) return error;
    const outage = this.options.outageAnswer?.(error);
    if (outage) {
      this.options.logger.warn({ err: (error as Error).message, requestId: ex.requestId, route: ex.route }, 'store unavailable');
      return outage;
    }
    this.options.logger.error({ err: error, requestId: ex.requestId, route: ex.route }, 'request failed');
    return new ApiError(500, 'INTERNAL_ERROR', 'Internal server error; the request id identifies it in the logs');
  }

  private sendError(ex: Exchange, error: unknown, closeConnection = false): void {
    const apiError = this.apiErrorOf(ex, error);
    this.write(ex, apiError.status, 'application/json', errorBodyJson(apiError, ex.requestId), apiError.headers, closeConnection);
  }

  private write(
    ex: Exchange,
    status: number,
    contentType: string | undefined,
    payload: Buffer | string | undefined,
    headers: Record<string, string> | undefined,
    closeConnection = false,
  ): void {
    if (ex.finished) return;
    const bytes = payload === undefined ? 0 : bodyBytes(payload);
    if (payload !== undefined && (ex.alwaysGzip || (bytes >= GZIP_MIN_BYTES && qualityOf(ex.headers.acceptEncoding, 'gzip') > 0))) {
      const varies = !ex.alwaysGzip;
      const level = bytes >= GZIP_FAST_BYTES ? zlibConstants.Z_BEST_SPEED : zlibConstants.Z_DEFAULT_COMPRESSION;
      gzip(payload, { level }, (error, compressed) => {
        const gzipped = error ? undefined : compressed;
        this.writeNow(ex, status, contentType, gzipped ?? payload, headers, closeConnection, { coding: gzipped ? 'gzip' : 'identity', varies });
      });
      return;
    }
    const varies = bytes >= GZIP_MIN_BYTES;
    this.writeNow(ex, status, contentType, payload, headers, closeConnection, { coding: 'identity', varies });
  }

  private writeNow(
    ex: Exchange,
    status: number,
    contentType: string | undefined,
    payload: Buffer | string | undefined,
    headers: Record<string, string> | undefined,
    closeConnection: boolean,
    /** The payload's content coding; varies: which one depends on Accept-Encoding. */
    encoding: { coding: ContentCoding; varies: boolean },
  ): void {
    if (ex.aborted || ex.finished) return;
    const close = closeConnection || this.options.status.draining;
    ex.res.cork(() => {
      ex.res.writeStatus(statusLine(status));
      ex.res.writeHeader('X-Request-Id', ex.requestIdHeader);
      if (contentType) ex.res.writeHeader('Content-Type', contentType);
      if (encoding.coding !== 'identity') ex.res.writeHeader('Content-Encoding', encoding.coding);
      if (encoding.varies) ex.res.writeHeader('Vary', 'Accept-Encoding');
      if (headers) for (const [name, value] of Object.entries(headers)) ex.res.writeHeader(name, value);
      // endWithoutBody(undefined, ...) would announce a Content-Length of 2^63 (the binding
      // reads undefined as a number), and clients that trust it wait for that body forever.
      if (status === 204 || status === 304) {
        if (close) ex.res.endWithoutBody(0, true);
        else ex.res.endWithoutBody();
      }
      else ex.res.end(payload ?? '', close);
    });
    this.finish(ex, status);
  }

  private finish(ex: Exchange, status: number): void {
    if (ex.finished) return;
    ex.finished = true;
    const seconds = (performance.now() - ex.started) / 1000;
    this.options.metrics.observe(ex.route, status, seconds);
    if (this.logsRequests) {
      this.options.logger.info(
        { requestId: ex.requestId, method: ex.method, path: ex.path, route: ex.route, status, ms: Math.round(seconds * 1e4) / 10 },
        'request',
      );
    }
    this.giveBackSlot(ex);
    this.options.status.inFlight--;
    if (this.options.status.inFlight === 0 && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const wake of waiters) wake();
    }
  }
}

const STATUS_LINES = new Map<number, string>();
/** `204 No Content`, made once per status rather than once per response. */
function statusLine(status: number): string {
  let line = STATUS_LINES.get(status);
  if (line === undefined) STATUS_LINES.set(status, (line = `${status} ${STATUS_CODES[status] ?? ''}`));
  return line;
}

/** uWS gives the method in lower case: the common ones map to constants rather than a new string per request. */
const UPPER_METHODS = new Map(['get', 'post', 'put', 'delete', 'patch', 'head', 'options'].map((m) => [m, m.toUpperCase()]));
const upperMethod = (method: string): string => UPPER_METHODS.get(method) ?? method.toUpperCase();


