import WebSocket from 'ws';
import { CLOSE_TOO_SLOW } from '../../src/services/statusStreamHub.js';

// The status stream bench's subscribers (bench/scenarios/statusStream.ts), in a process of
// their own so the load generator's timing is not theirs. Started with fork(); told by IPC
// what to subscribe to; answers when every subscriber has its snapshot, and, asked for the
// end, when every subscriber has seen the event's last change.
//
// Every subscriber checks that it missed nothing: each `changes` message's seq is the
// previous seq plus the changes in it. All subscribers of one event get the same messages,
// so one subscriber (the first) also builds the view from them, and the bench compares that
// view with the event's state: same messages, same view, for all of them. The first
// `sampled` subscribers note when they first saw each label, for delivery latency.

interface Start {
  type: 'start';
  url: string;
  headers: Record<string, string>;
  count: number;
  sampled: number;
}
interface Finish {
  type: 'finish';
  lastSeq: number;
  timeoutMs: number;
}

const SEQ = /^\{"type":"(snapshot|changes)","seq":(\d+)/;
const LABEL = /"objectLabel":"([^"]*)"/g;

interface Subscriber {
  seq: number;
  gaps: number;
  messages: number;
}

let subscribers: Subscriber[] = [];
const sockets: WebSocket[] = [];
/** label -> epoch ms the first sampled subscriber saw it, per sampled subscriber. */
const seen: Map<string, number>[] = [];
const view = new Map<string, string>();
let closedEarly = 0;
/** Of those, closed by the server for falling too far behind (CLOSE_TOO_SLOW, docs/status-stream.md). */
let closedTooSlow = 0;

const now = () => performance.timeOrigin + performance.now();

function open(start: Start, index: number): Promise<void> {
  const subscriber: Subscriber = { seq: -1, gaps: 0, messages: 0 };
  subscribers.push(subscriber);
  const sampled = index < start.sampled ? new Map<string, number>() : undefined;
  if (sampled) seen.push(sampled);
  // A handshake the server never answers fails the run instead of hanging it.
  const socket = new WebSocket(start.url, { headers: start.headers, perMessageDeflate: false, handshakeTimeout: 10_000 });
  sockets.push(socket);
  // When it opened, if it did: a close before the first message says how far it got.
  const created = now();
  let openedAt: number | undefined;
  socket.on('open', () => (openedAt = now()));
  return new Promise((resolve, reject) => {
    socket.on('message', (data: Buffer) => {
      const text = data.toString();
      const head = SEQ.exec(text);
      if (!head) return;
      const seq = Number(head[2]);
      subscriber.messages++;
      if (head[1] === 'snapshot') {
        if (index === 0) {
          view.clear();
          const objects = (JSON.parse(text) as { objects: Record<string, { status: string }> }).objects;
          for (const [label, object] of Object.entries(objects)) view.set(label, object.status);
        }
        subscriber.seq = seq;
        return resolve();
      }
      let count = 0;
      const at = sampled ? now() : 0;
      for (const match of text.matchAll(LABEL)) {
        count++;
        if (sampled && !sampled.has(match[1]!)) sampled.set(match[1]!, at);
      }
      if (seq !== subscriber.seq + count) subscriber.gaps++;
      subscriber.seq = seq;
      if (index === 0) {
        for (const change of (JSON.parse(text) as { changes: { objectLabel: string; status: string }[] }).changes) {
          if (change.status === 'free') view.delete(change.objectLabel);
          else view.set(change.objectLabel, change.status);
        }
      }
    });
    socket.on('close', (code: number, reason: Buffer) => {
      closedEarly++;
      if (code === CLOSE_TOO_SLOW) closedTooSlow++;
      // Closed before its first message: the run fails, saying how, rather than waiting for it.
      if (subscriber.messages === 0) {
        const opened = openedAt === undefined ? 'never opened' : `opened after ${Math.round(openedAt - created)} ms`;
        reject(new Error(`subscriber ${index} was closed before its first message: ${code} ${reason.toString()} (${opened}, closed after ${Math.round(now() - created)} ms)`));
      }
    });
    socket.on('error', reject);
  });
}

async function finish(message: Finish): Promise<void> {
  const deadline = Date.now() + message.timeoutMs;
  while (subscribers.some((s) => s.seq < message.lastSeq) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const behind = subscribers.filter((s) => s.seq < message.lastSeq).length;
  const gaps = subscribers.reduce((n, s) => n + s.gaps, 0);
  const closed = closedEarly;
  const tooSlow = closedTooSlow;
  for (const socket of sockets) socket.terminate();
  process.send!({ type: 'finished', behind, gaps, closedEarly: closed, closedTooSlow: tooSlow, view: [...view], seen: seen.map((m) => [...m]) });
}

process.on('message', (message: Start | Finish) => {
  if (message.type === 'start') {
    subscribers = [];
    // Opened in slices: 5,000 handshakes at once would time out on a 2-core machine.
    void (async () => {
      for (let i = 0; i < message.count; i += 250) {
        await Promise.all(Array.from({ length: Math.min(250, message.count - i) }, (_, j) => open(message, i + j)));
      }
      process.send!({ type: 'ready' });
    })().catch((error: Error) => process.send!({ type: 'failed', error: error.message }));
  } else if (message.type === 'finish') void finish(message);
});
