import { STATUS_CODES } from 'node:http';
import type { HttpResponse, TemplatedApp, WebSocket } from 'uWebSockets.js';
import { ApiError, badRequest } from '../domain/errors.js';
import { parseSince } from '../domain/statusStreamView.js';
import type { TenantCache } from '../metadata/tenantCache.js';
import type { EventCatalog } from '../services/eventCatalog.js';
import type { StatusStreamHub, Subscriber } from '../services/statusStreamHub.js';
import { authenticate, authenticateCached, workspaceOfPublicKey, workspaceOfPublicKeyCached } from './auth.js';
import { errorBodyJson } from './errorBody.js';

// GET /events/{eventKey}/status-stream: the WebSocket upgrade and what a subscriber may send
// (docs/status-stream.md). Everything is checked before the upgrade, so a refusal is an
// HTTP answer with the usual error body; after it, the hub sends and the client listens.

export const STATUS_STREAM_PATH = '/events/:eventKey/status-stream';
/** Close codes for what a client sends: data it may not send (binary), and text that is no message of the protocol. */
export const CLOSE_UNSUPPORTED = 1003;
export const CLOSE_POLICY = 1008;
/**
 * uWS drops a subscriber this far past the limit at once; the hub closes it gracefully, with
 * CLOSE_TOO_SLOW, on its next check after the limit (every 100 ms), well before.
 */
const HARD_BACKPRESSURE_EXTRA = 8 * 1024 * 1024;
const HARD_PAYLOAD_BYTES = 64 * 1024;
/**
 * A subscriber silent this long is closed (docs/status-stream.md, "Limits and close codes").
 * uWS pings a socket silent for this less a margin (4 s below 16), and waits that margin for
 * its answer; the same margin is how long a socket closed with CLOSE_TOO_SLOW keeps its
 * buffer, grown by the close frame queued behind what the client had not read, when the
 * client never reads on. At 120 s (a 16 s margin) thousands of them closed at once held
 * about 40 MiB more when the bench's status stream ended (docs/performance.md, session 30).
 */
export const STATUS_STREAM_IDLE_SECONDS = 15;
export const CLOSE_TOO_BIG = 1009;

export interface StatusStreamRouteParts {
  hub: StatusStreamHub;
  tenants: TenantCache;
  catalog: EventCatalog;
  maxMessageBytes: number;
  /** The answer for a store that could not be reached (503), as the HTTP server gives it. */
  outageAnswer?: (error: unknown) => ApiError | undefined;
}

let refusals = 0;

export function serveStatusStream(app: TemplatedApp, parts: StatusStreamRouteParts): void {
  const { hub } = parts;
  app.ws<Subscriber>(STATUS_STREAM_PATH, {
    // uWS drops a connection whose frame passes maxPayloadLength without a close frame
    // (the client sees 1006); frames up to this are read and closed with 1009 below.
    maxPayloadLength: Math.max(parts.maxMessageBytes * 16, HARD_PAYLOAD_BYTES),
    maxBackpressure: Math.max(hub.limits.maxBackpressureBytes * 4, hub.limits.maxBackpressureBytes + HARD_BACKPRESSURE_EXTRA),
    // Past the hard limit uWS drops a message: the hub then closes the socket (4008), so no
    // subscriber ever misses a change without knowing.
    idleTimeout: STATUS_STREAM_IDLE_SECONDS,
    sendPingsAutomatically: true,
    upgrade: (res, req, context) => {
      // The request object is gone after this handler returns: read it all now.
      const eventKey = decodeURIComponent(req.getParameter(0) ?? '');
      const query = new URLSearchParams(req.getQuery() ?? '');
      const headers = { authorization: req.getHeader('authorization'), workspaceKey: req.getHeader('x-workspace-key'), contentType: '', acceptEncoding: '', host: '', ifNoneMatch: '' };
      const secKey = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      // A subscriber this process can check without waiting (its key's company and its event
      // loaded: nearly every one) is upgraded here, in the handler uWS runs corked.
      let subscriber: Subscriber | undefined;
      try {
        subscriber = cachedSubscriberOf(parts, eventKey, query, headers);
      } catch (error) {
        return refuse(res, parts, error);
      }
      if (subscriber) return void res.upgrade(subscriber, secKey, protocol, extensions, context);
      let aborted = false;
      res.onAborted(() => (aborted = true));
      subscriberOf(parts, eventKey, query, headers).then(
        (later) => {
          if (aborted) return hub.release(later.loaded.event._id);
          // Not inside res.cork(): uWS 20.30's cork, once a socket upgraded in it has taken the
          // response's memory in place, reads the WebSocket's data as the response's state and
          // may take it for "Connection: close", closing the new socket before its first
          // message (the client sees 1006; fixed upstream in uWebSockets after 20.30). Upgraded
          // outside a cork, uWS prints a warning that writes should be corked: this path runs
          // for the first subscriber of an event in a process, not for every one.
          res.upgrade(later, secKey, protocol, extensions, context);
        },
        (error: unknown) => {
          if (!aborted) refuse(res, parts, error);
        },
      );
    },
    open: (ws) => void hub.join(ws),
    message: (ws, message, isBinary) => {
      if (message.byteLength > parts.maxMessageBytes) return ws.end(CLOSE_TOO_BIG, `Messages are at most ${parts.maxMessageBytes} bytes`);
      answer(ws, message, isBinary);
    },
    // A held-back subscriber (the hub's send) is caught up once its socket has sent everything.
    drain: (ws) => hub.drained(ws),
    close: (ws) => hub.leave(ws),
  });
}

type StreamHeaders = Parameters<typeof authenticate>[1];

/** Who subscribes to what, checked: 400 for a bad `since`, 401 for a key, 404 for the event, 429 past the limits. */
async function subscriberOf(parts: StatusStreamRouteParts, eventKey: string, query: URLSearchParams, headers: StreamHeaders): Promise<Subscriber> {
  const { since, publicKey } = askedFor(query);
  const { workspace } =
    publicKey !== null ? await workspaceOfPublicKey(publicKey, parts.tenants) : await authenticate('workspace', headers, parts.tenants, undefined);
  return admitted(parts, await parts.catalog.get(workspace!, eventKey), publicKey, since);
}

/** subscriberOf without waiting, when the key's company and the event are loaded; undefined when only subscriberOf can tell. */
function cachedSubscriberOf(parts: StatusStreamRouteParts, eventKey: string, query: URLSearchParams, headers: StreamHeaders): Subscriber | undefined {
  const { since, publicKey } = askedFor(query);
  const caller = publicKey !== null ? workspaceOfPublicKeyCached(publicKey, parts.tenants) : authenticateCached('workspace', headers, parts.tenants);
  const loaded = caller?.workspace && parts.catalog.peek(caller.workspace, eventKey);
  return loaded ? admitted(parts, loaded, publicKey, since) : undefined;
}

/** The subscription's `since` (400 when it is no change number) and public key. */
function askedFor(query: URLSearchParams): { since: number | undefined; publicKey: string | null } {
  const since = parseSince(query.get('since') ?? undefined);
  if (since === null) throw badRequest('GENERAL_ERROR', '`since` must be a change number (a whole number) from an earlier message');
  return { since, publicKey: query.get('publicKey') };
}

/** The subscriber, counted by the hub (429 past its limits). */
function admitted(parts: StatusStreamRouteParts, loaded: Subscriber['loaded'], publicKey: string | null, since: number | undefined): Subscriber {
  parts.hub.admit(loaded.event._id);
  return { loaded, audience: publicKey !== null ? 'public' : 'secret', since, closed: false };
}

function refuse(res: HttpResponse, parts: StatusStreamRouteParts, error: unknown): void {
  const apiError = error instanceof ApiError ? error : (parts.outageAnswer?.(error) ?? new ApiError(500, 'INTERNAL_ERROR', 'Internal server error'));
  const requestId = `stream-${++refusals}`;
  res.cork(() => {
    res.writeStatus(`${apiError.status} ${STATUS_CODES[apiError.status] ?? ''}`);
    res.writeHeader('Content-Type', 'application/json');
    res.writeHeader('X-Request-Id', requestId);
    res.end(errorBodyJson(apiError, requestId));
  });
}

/** A client may ping (`{"type":"ping"}` gets `{"type":"pong"}`); anything else closes its socket. */
function answer(ws: WebSocket<Subscriber>, message: ArrayBuffer, isBinary: boolean): void {
  if (isBinary) return ws.end(CLOSE_UNSUPPORTED, 'Binary frames are not accepted');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(message).toString('utf8'));
  } catch {
    return ws.end(CLOSE_POLICY, 'Messages must be JSON');
  }
  if ((parsed as { type?: unknown } | null)?.type === 'ping') {
    ws.send('{"type":"pong"}', false);
    return;
  }
  ws.end(CLOSE_POLICY, 'Unknown message type; a client may only send {"type":"ping"}');
}
