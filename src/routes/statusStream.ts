import { badRequest } from '../domain/errors.js';
import { parseSince } from '../domain/statusStreamView.js';
import { authenticate, authenticateCached, workspaceOfPublicKey, workspaceOfPublicKeyCached } from '../http/auth.js';
import type { UpgradeRequest, WebSocketRoute } from '../http/webSocketRoute.js';
import type { TenantCache } from '../metadata/tenantCache.js';
import type { WorkspaceDoc } from '../domain/tenant.js';
import type { EventCatalog, LoadedEvent } from '../services/eventCatalog.js';
import { variantOf, type Format } from '../services/streamFollowers.js';
import type { StreamSocket, StreamSockets, Subscriber } from '../services/streamSockets.js';

// GET /events/{eventKey}/status-stream: the WebSocket of the live status stream
// (docs/status-stream.md). Checked before the upgrade: `format`, `since`, the key, the event,
// the limits; after it the stream sends and the client listens, and may only ping.

export const STATUS_STREAM_PATH = '/events/:eventKey/status-stream';
/**
 * A subscriber silent this long is closed (docs/status-stream.md, "Limits and close codes").
 * uWS pings a socket silent for this less a margin (4 s below 16), and waits that margin for
 * its answer; the same margin is how long a closed socket keeps its buffer when its client
 * never reads on, so a short one frees thousands of closed subscribers' buffers soon.
 */
export const STATUS_STREAM_IDLE_SECONDS = 15;
/** Close codes for what a client sends: binary data, and text that is no message of the protocol. */
export const CLOSE_UNSUPPORTED = 1003;
export const CLOSE_POLICY = 1008;
/**
 * What uWS may buffer for one subscriber before it drops a frame: far above what the stream
 * sends it (a subscriber whose socket has not drained is skipped), so only a first frame of a
 * very big event comes near it.
 */
const MAX_BACKPRESSURE_BYTES = 64 * 1024 * 1024;

const FORMATS: readonly Format[] = ['json', 'compact'];

export interface StatusStreamParts {
  sockets: StreamSockets;
  tenants: TenantCache;
  catalog: EventCatalog;
  maxMessageBytes: number;
}

export function statusStreamRoute(parts: StatusStreamParts): WebSocketRoute<Subscriber> {
  const { sockets } = parts;
  const socket = (ws: unknown) => ws as StreamSocket;
  return {
    path: STATUS_STREAM_PATH,
    checkNow: (request) => {
      const asked = askedFor(request);
      const caller = asked.publicKey !== null ? workspaceOfPublicKeyCached(asked.publicKey, parts.tenants) : authenticateCached('workspace', headersOf(request), parts.tenants);
      const loaded = caller?.workspace && parts.catalog.peek(caller.workspace, request.params[0]!);
      return loaded ? admitted(parts, caller.workspace!, loaded, asked) : undefined;
    },
    check: async (request) => {
      const asked = askedFor(request);
      const { workspace } =
        asked.publicKey !== null ? await workspaceOfPublicKey(asked.publicKey, parts.tenants) : await authenticate('workspace', headersOf(request), parts.tenants, undefined);
      return admitted(parts, workspace!, await parts.catalog.get(workspace!, request.params[0]!), asked);
    },
    abandoned: (subscriber) => sockets.release(subscriber),
    open: (ws) => sockets.join(socket(ws)),
    message: (ws, message, isBinary) => answer(socket(ws), message, isBinary),
    drain: (ws) => sockets.drained(socket(ws)),
    close: (ws) => sockets.leave(socket(ws)),
    maxMessageBytes: parts.maxMessageBytes,
    maxBackpressure: MAX_BACKPRESSURE_BYTES,
    idleTimeoutSeconds: STATUS_STREAM_IDLE_SECONDS,
  };
}

interface Asked {
  since: number | undefined;
  publicKey: string | null;
  format: Format;
}

/** The subscription's `since` and `format` (400 when malformed) and public key. */
function askedFor(request: UpgradeRequest): Asked {
  const { query } = request;
  const since = parseSince(query.get('since') ?? undefined);
  if (since === null) throw badRequest('GENERAL_ERROR', '`since` must be a change number (a whole number) from an earlier message');
  const format = (query.get('format') ?? 'json') as Format;
  if (!FORMATS.includes(format)) throw badRequest('GENERAL_ERROR', '`format` must be json or compact');
  return { since, publicKey: query.get('publicKey'), format };
}

const headersOf = (request: UpgradeRequest) => ({ authorization: request.authorization, workspaceKey: request.workspaceKey, contentType: '', acceptEncoding: '', host: '', ifNoneMatch: '' });

/** The subscriber, counted against the limits (429 past them). */
function admitted(parts: StatusStreamParts, workspace: WorkspaceDoc, loaded: LoadedEvent, asked: Asked): Subscriber {
  const variant = variantOf(asked.publicKey !== null ? 'public' : 'secret', asked.format);
  return parts.sockets.admit(workspace, loaded.event._id, loaded.event.key, variant, asked.since);
}

const PONG = Buffer.from('{"type":"pong"}');

/** A client may ping (`{"type":"ping"}` gets `{"type":"pong"}`); anything else closes its socket. */
function answer(ws: StreamSocket, message: ArrayBuffer, isBinary: boolean): void {
  if (isBinary) return ws.end(CLOSE_UNSUPPORTED, 'Binary frames are not accepted');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(message).toString('utf8'));
  } catch {
    return ws.end(CLOSE_POLICY, 'Messages must be JSON');
  }
  if ((parsed as { type?: unknown } | null)?.type === 'ping') {
    ws.send(PONG, false);
    return;
  }
  ws.end(CLOSE_POLICY, 'Unknown message type; a client may only send {"type":"ping"}');
}
