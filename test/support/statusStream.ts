import WebSocket from 'ws';
import { basic } from './harness.js';

// A status-stream subscriber for tests (docs/status-stream.md): connects with the `ws`
// client, keeps every message, and keeps the view a client builds from them.

export interface StreamMessage {
  type: 'snapshot' | 'changes' | 'pong';
  seq: number;
  reset?: boolean;
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
}

export function streamUrl(serverUrl: string, eventKey: string, options: SubscribeOptions): string {
  const query = new URLSearchParams();
  if (options.publicKey !== undefined) query.set('publicKey', options.publicKey);
  if (options.since !== undefined) query.set('since', String(options.since));
  return `${serverUrl.replace(/^http/, 'ws')}/events/${encodeURIComponent(eventKey)}/status-stream?${query}`;
}

/** Opens a subscription; rejects with the HTTP status and body of a refused upgrade. */
export function subscribe(serverUrl: string, eventKey: string, options: SubscribeOptions): Promise<Subscription> {
  const headers = options.secretKey ? { authorization: basic(options.secretKey) } : undefined;
  const url = streamUrl(serverUrl, eventKey, options);
  const socket = new WebSocket(url, { headers });
  const messages: StreamMessage[] = [];
  const view = new Map<string, Record<string, unknown>>();
  const waiters: { test: (m: StreamMessage) => boolean; resolve: (m: StreamMessage) => void }[] = [];
  socket.on('message', (data, isBinary) => {
    if (isBinary) throw new Error('the server sent a binary frame');
    const message = JSON.parse(data.toString()) as StreamMessage;
    messages.push(message);
    if (message.type === 'snapshot') {
      view.clear();
      for (const [label, object] of Object.entries(message.objects ?? {})) view.set(label, object);
    } else if (message.type === 'changes') {
      // As docs/status-stream.md tells a client to apply them.
      for (const change of message.changes ?? []) {
        const { objectLabel, quantity: _quantity, ...fields } = change;
        const before = view.get(objectLabel);
        const object: Record<string, unknown> =
          fields.status !== undefined ? { ...fields, notForSale: before?.notForSale } : { ...(before ?? { status: 'free' }), notForSale: fields.notForSale };
        if (!object.notForSale) delete object.notForSale;
        const shown = object.status !== 'free' || Number(object.booked ?? 0) > 0 || Number(object.held ?? 0) > 0 || object.notForSale !== undefined;
        if (shown) view.set(objectLabel, object);
        else view.delete(objectLabel);
      }
    }
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
