import WebSocket from 'ws';
import { CONFLATED, FrameDecoder, SNAPSHOT, SNAPSHOT_RESET, type CompactEntry } from '../../src/domain/compactFrames.js';
import { basic } from './harness.js';

// A status-stream subscriber for tests (docs/status-stream.md): connects with the `ws`
// client, keeps every message, and keeps the view a client builds from them. A compact
// subscription's frames are decoded into the JSON messages' form (labels from the layout),
// with their bytes kept beside them.

export interface StreamMessage {
  type: 'snapshot' | 'changes' | 'pong';
  seq: number;
  /** Changes: the seq the message follows. */
  from?: number;
  /** Changes: each object's whole state now (a slow reader's catch-up). */
  conflated?: boolean;
  reset?: boolean;
  /** Compact snapshots: the layout's version. */
  layoutVersion?: string;
  /** The frame as it came, for compact subscriptions. */
  bytes?: Buffer;
  objects?: Record<string, Record<string, unknown>>;
  /** Status changes carry `status`; for-sale changes `notForSale` and no status. */
  changes?: ({ objectLabel: string; status?: string; notForSale?: number } & Record<string, unknown>)[];
}

export interface Subscription {
  socket: WebSocket;
  messages: StreamMessage[];
  /** label -> the object as the messages so far say (absent: free). */
  view: Map<string, Record<string, unknown>>;
  /** The seq of the last message, -1 before the first. */
  seq: () => number;
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves once a message satisfies `test` (earlier ones count), rejects after `timeoutMs`. */
  until(test: (message: StreamMessage) => boolean, timeoutMs?: number): Promise<StreamMessage>;
  close(): void;
}

export interface SubscribeOptions {
  publicKey?: string;
  secretKey?: string;
  since?: number | string;
  format?: string;
  /** For format=compact: the labels of the event's layout, in order (GET /events/{key}/layout). */
  layout?: string[];
  /** The view a client resuming with `since` kept from its last subscription. */
  view?: Map<string, Record<string, unknown>>;
}

export function streamUrl(serverUrl: string, eventKey: string, options: SubscribeOptions): string {
  const query = new URLSearchParams();
  if (options.publicKey !== undefined) query.set('publicKey', options.publicKey);
  if (options.since !== undefined) query.set('since', String(options.since));
  if (options.format !== undefined) query.set('format', options.format);
  return `${serverUrl.replace(/^http/, 'ws')}/events/${encodeURIComponent(eventKey)}/status-stream?${query}`;
}

/** Opens a subscription; rejects with the HTTP status and body of a refused upgrade. */
export function subscribe(serverUrl: string, eventKey: string, options: SubscribeOptions): Promise<Subscription> {
  const headers = options.secretKey ? { authorization: basic(options.secretKey) } : undefined;
  const url = streamUrl(serverUrl, eventKey, options);
  const socket = new WebSocket(url, { headers });
  const messages: StreamMessage[] = [];
  const view = new Map<string, Record<string, unknown>>(options.view);
  const waiters: { test: (m: StreamMessage) => boolean; resolve: (m: StreamMessage) => void }[] = [];
  const decoder = new FrameDecoder();
  socket.on('message', (data: Buffer, isBinary) => {
    if (isBinary !== (options.format === 'compact')) throw new Error(`the server sent a ${isBinary ? 'binary' : 'text'} frame to a ${options.format ?? 'json'} subscriber`);
    const message = isBinary ? messageOfFrame(decoder, data, options.layout ?? []) : (JSON.parse(data.toString()) as StreamMessage);
    messages.push(message);
    applyMessage(view, message);
    for (const waiter of [...waiters]) {
      if (waiter.test(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  const subscription: Subscription = {
    socket,
    messages,
    view,
    seq: () => (messages.filter((m) => m.type !== 'pong').at(-1)?.seq ?? -1),
    closed,
    until(test, timeoutMs = 5_000) {
      const found = messages.find(test);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${url}: no such message within ${timeoutMs} ms; got ${JSON.stringify(messages).slice(0, 2000)}`)), timeoutMs);
        waiters.push({ test, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      });
    },
    close: () => socket.close(),
  };
  return new Promise((resolve, reject) => {
    socket.on('open', () => resolve(subscription));
    socket.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${response.statusCode}`), { status: response.statusCode, body: JSON.parse(body || 'null') })));
    });
    socket.on('error', (error) => reject(error));
  });
}

/** The status each label has in the event, as a map of the objects that are not free, read through the API. */
export async function statusesOf(api: { get: (path: string) => Promise<{ status: number; body: any; text: string }> }, eventKey: string): Promise<Map<string, string>> {
  const report = await api.get(`/reports/events/${encodeURIComponent(eventKey)}/byLabel`);
  if (report.status !== 200) throw new Error(`report answered ${report.status}: ${report.text}`);
  const statuses = new Map<string, string>();
  for (const [label, items] of Object.entries(report.body as Record<string, { status: string; numBooked?: number; numHeld?: number }[]>)) {
    const item = items[0]!;
    if (item.numBooked !== undefined && item.numBooked + item.numHeld! > 0) statuses.set(label, `${item.status} ${item.numBooked}/${item.numHeld}`);
    else if (item.numBooked === undefined && item.status !== 'free') statuses.set(label, item.status);
  }
  return statuses;
}

/** A subscriber's view in the form statusesOf gives: status, and for GA areas booked/held (objects listed only for their places off sale left out). */
export function viewStatuses(view: Map<string, Record<string, unknown>>): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const [label, object] of view) {
    if (object.booked === undefined && object.status !== 'free') statuses.set(label, String(object.status));
    else if (object.booked !== undefined && Number(object.booked) + Number(object.held) > 0) statuses.set(label, `${object.status} ${object.booked}/${object.held}`);
  }
  return statuses;
}

/** A compact frame as the JSON message it stands for, objects named by their labels in the layout. */
function messageOfFrame(decoder: FrameDecoder, data: Buffer, layout: string[]): StreamMessage {
  const frame = decoder.decode(new Uint8Array(data));
  const label = (entry: CompactEntry) => {
    const found = layout[entry.position];
    if (found === undefined) throw new Error(`compact frame: position ${entry.position} is not in the layout (${layout.length} objects)`);
    return found;
  };
  const fields = (entry: CompactEntry) => {
    const { position: _position, ...rest } = entry;
    return rest as Record<string, unknown>;
  };
  if (frame.kind === SNAPSHOT || frame.kind === SNAPSHOT_RESET) {
    const objects: Record<string, Record<string, unknown>> = {};
    for (const entry of frame.entries) objects[label(entry)] = fields(entry);
    return { type: 'snapshot', seq: frame.to, reset: frame.kind === SNAPSHOT_RESET || undefined, layoutVersion: frame.layoutVersion, objects, bytes: data };
  }
  const changes = frame.entries.map((entry) => {
    const change: Record<string, unknown> & { objectLabel: string } = { objectLabel: label(entry), ...fields(entry) };
    // As in JSON: a seat's change says its one place.
    if (change.status !== undefined && frame.kind !== CONFLATED) change.quantity ??= 1;
    return change;
  });
  return { type: 'changes', from: frame.from, seq: frame.to, conflated: frame.kind === CONFLATED || undefined, changes, bytes: data };
}

/** Applies a message to a view as docs/status-stream.md tells a client to. */
export function applyMessage(view: Map<string, Record<string, unknown>>, message: StreamMessage): void {
  if (message.type === 'snapshot') {
    view.clear();
    for (const [label, object] of Object.entries(message.objects ?? {})) view.set(label, object);
    return;
  }
  if (message.type !== 'changes') return;
  for (const change of message.changes ?? []) {
    const { objectLabel, quantity: _quantity, ...fields } = change;
    const before = view.get(objectLabel);
    let object: Record<string, unknown>;
    // A conflated change is the object's whole state; otherwise a status change keeps the places off sale and a for-sale change sets only those.
    if (message.conflated) object = { ...fields };
    else object = fields.status !== undefined ? { ...fields, notForSale: before?.notForSale } : { ...(before ?? { status: 'free' }), notForSale: fields.notForSale };
    if (!object.notForSale) delete object.notForSale;
    const shown = object.status !== 'free' || Number(object.booked ?? 0) > 0 || Number(object.held ?? 0) > 0 || object.notForSale !== undefined;
    if (shown) view.set(objectLabel, object);
    else view.delete(objectLabel);
  }
}

/** The labels of an event's layout, in order: what compact frames name by position. */
export async function layoutLabels(api: { get: (path: string) => Promise<{ status: number; body: any; text: string }> }, eventKey: string): Promise<string[]> {
  const layout = await api.get(`/events/${encodeURIComponent(eventKey)}/layout`);
  if (layout.status !== 200) throw new Error(`layout answered ${layout.status}: ${layout.text}`);
  return (layout.body.objects as { label: string }[]).map((object) => object.label);
}
