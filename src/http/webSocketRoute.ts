import { STATUS_CODES } from 'node:http';
import type { HttpRequest, HttpResponse, TemplatedApp, WebSocket } from 'uWebSockets.js';
import { ApiError } from '../domain/errors.js';
import { errorBodyJson } from './errorBody.js';

// A WebSocket route on uWebSockets.js (the status stream's: src/routes/statusStream.ts).
// Everything is checked before the upgrade, so a refusal is an HTTP answer with the usual
// error body; a request this process can check without waiting is upgraded at once, in the
// handler uWS runs corked, and the rest once their check is done.

/** The parts of an upgrade request a check reads (uWS's request object is gone once the handler returns). */
export interface UpgradeRequest {
  /** The path's parameters, URL-decoded. */
  params: string[];
  query: URLSearchParams;
  authorization: string;
  workspaceKey: string;
}

/** What a route does with its sockets, given as uWS's WebSocket (getUserData, send, end, ...). */
export interface WebSocketRoute<Data> {
  path: string;
  /** The socket's data when the request can be checked without waiting; undefined when only `check` can tell. Throws the refusal. */
  checkNow(request: UpgradeRequest): Data | undefined;
  /** The socket's data once checked; rejects with the refusal. */
  check(request: UpgradeRequest): Promise<Data>;
  /** A checked request whose client left before its upgrade: what the check took is given back. */
  abandoned(data: Data): void;
  open(ws: WebSocket<Data>): void;
  /** A message from the client, within maxMessageBytes. */
  message(ws: WebSocket<Data>, message: ArrayBuffer, isBinary: boolean): void;
  drain(ws: WebSocket<Data>): void;
  close(ws: WebSocket<Data>): void;
  /** The largest frame a client may send; a bigger one closes its socket with CLOSE_TOO_BIG. */
  maxMessageBytes: number;
  /** Bytes uWS may buffer for a socket before it drops a message (the route decides what a socket is sent long before). */
  maxBackpressure: number;
  /** A socket silent this long is pinged, then dropped (uWS's idle timeout, in seconds). */
  idleTimeoutSeconds: number;
}

export const CLOSE_TOO_BIG = 1009;
/**
 * uWS drops a connection whose frame passes maxPayloadLength without a close frame (the
 * client sees 1006); frames up to this many times maxMessageBytes (and 64 KB at least) are
 * read and closed with CLOSE_TOO_BIG.
 */
const READ_FACTOR = 16;
const MIN_READ_BYTES = 64 * 1024;

let refusals = 0;

export function serveWebSocket<Data>(app: TemplatedApp, route: WebSocketRoute<Data>, outageAnswer?: (error: unknown) => ApiError | undefined): void {
  app.ws<Data>(route.path, {
    maxPayloadLength: Math.max(route.maxMessageBytes * READ_FACTOR, MIN_READ_BYTES),
    maxBackpressure: route.maxBackpressure,
    idleTimeout: route.idleTimeoutSeconds,
    sendPingsAutomatically: true,
    upgrade: (res, req, context) => {
      const raw = rawRequest(req);
      const secKey = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      let data: Data | undefined;
      let request: UpgradeRequest;
      try {
        request = decoded(raw);
        data = route.checkNow(request);
      } catch (error) {
        return refuse(res, error, outageAnswer);
      }
      if (data !== undefined) return void res.upgrade(data, secKey, protocol, extensions, context);
      let aborted = false;
      res.onAborted(() => (aborted = true));
      route.check(request!).then(
        (later) => {
          if (aborted) return route.abandoned(later);
          // Not inside res.cork(): uWS 20.30's cork, once a socket upgraded in it has taken the
          // response's memory in place, reads the WebSocket's data as the response's state and
          // may take it for "Connection: close", closing the new socket before its first
          // message (the client sees 1006). Upgraded outside a cork, uWS prints a warning that
          // writes should be corked: this path runs only for requests that had to wait.
          res.upgrade(later, secKey, protocol, extensions, context);
        },
        (error: unknown) => {
          if (!aborted) refuse(res, error, outageAnswer);
        },
      );
    },
    open: (ws) => route.open(ws),
    message: (ws, message, isBinary) => {
      if (message.byteLength > route.maxMessageBytes) return ws.end(CLOSE_TOO_BIG, `Messages are at most ${route.maxMessageBytes} bytes`);
      route.message(ws, message, isBinary);
    },
    drain: (ws) => route.drain(ws),
    close: (ws) => route.close(ws),
  });
}

/** The most path parameters a WebSocket route has. */
const MAX_PARAMS = 4;

function rawRequest(req: HttpRequest): Omit<UpgradeRequest, 'params'> & { params: string[] } {
  const params: string[] = [];
  for (let i = 0; i < MAX_PARAMS; i++) {
    const param = req.getParameter(i);
    if (param === undefined || param === '') break;
    params.push(param);
  }
  return { params, query: new URLSearchParams(req.getQuery() ?? ''), authorization: req.getHeader('authorization'), workspaceKey: req.getHeader('x-workspace-key') };
}

/** The path's parameters URL-decoded; 400 for one that is not valid percent-encoding. */
function decoded(raw: UpgradeRequest): UpgradeRequest {
  try {
    return { ...raw, params: raw.params.map((param) => decodeURIComponent(param)) };
  } catch {
    throw new ApiError(400, 'GENERAL_ERROR', 'The path is not valid percent-encoding');
  }
}

function refuse(res: HttpResponse, error: unknown, outageAnswer?: (error: unknown) => ApiError | undefined): void {
  const apiError = error instanceof ApiError ? error : (outageAnswer?.(error) ?? new ApiError(500, 'INTERNAL_ERROR', 'Internal server error'));
  const requestId = `upgrade-${++refusals}`;
  res.cork(() => {
    res.writeStatus(`${apiError.status} ${STATUS_CODES[apiError.status] ?? ''}`);
    res.writeHeader('Content-Type', 'application/json');
    res.writeHeader('X-Request-Id', requestId);
    res.end(errorBodyJson(apiError, requestId));
  });
}
