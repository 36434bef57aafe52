import { createHash, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { CONFLATED, FrameDecoder, SNAPSHOT, SNAPSHOT_RESET } from '../../src/domain/compactFrames.js';
import { CLOSE_TOO_SLOW } from '../../src/services/streamSockets.js';
import { isSampled } from './streamSample.js';

// The status stream bench's subscribers (bench/scenarios/statusStream.ts), in a process of
// their own, told by IPC what to subscribe to. Built so that they are not what limits a run
// on a 2-core machine: a plain TCP socket each, speaking just enough WebSocket (the handshake,
// unmasked server frames, pongs); most subscribers read only each frame's header (its seq
// range: kind and two varints in the compact format, the opening fields of a JSON message)
// and skip the rest unread, and read their sockets in rounds, not on every frame (libuv reads
// straight into one buffer, and a socket stops reading between rounds: the kernel keeps what
// comes meanwhile). A sample of them, spread over the order they connect in (isSampled), reads
// continuously and keeps every frame with the time it came; once the load is over, each decodes
// its frames: their delivery times and their views are the figures. Every subscriber checks its
// seq continuity from the headers: each changes frame follows on from where the last one left
// it (`from`).

interface Start {
  type: 'start';
  host: string;
  port: number;
  /** The path with its query (format, publicKey). */
  path: string;
  headers: Record<string, string>;
  count: number;
  sampled: number;
  format: 'json' | 'compact';
  /** The layout's labels in order (compact frames name objects by position). */
  layout: string[];
}
interface Finish {
  type: 'finish';
  /** The seq every subscriber should reach. */
  lastSeq: number;
  timeoutMs: number;
  /** label -> when its booking was answered (epoch ms), for the delivery times of the sample. */
  answered: [string, number][];
  /** The digest (viewDigest) of the event's state: a sampled view that differs is a mismatch. */
  expectedDigest: string;
}

/**
 * Reads a second by the subscribers outside the sample, all of them together: each reads every
 * count / READS_PER_SECOND seconds (5,000 subscribers once a second; five reads a second each
 * doubled their process's CPU), but at least every READ_AT_MOST_EVERY_MS, so that its kernel
 * buffer does not fill between two reads (a JSON subscriber takes about half a megabyte a second).
 */
const READS_PER_SECOND = 5_000;
const READ_AT_MOST_EVERY_MS = 200;
/** Payload bytes a subscriber outside the sample keeps of a frame: enough for its header. */
const HEADER_BYTES = 96;
const JSON_HEAD = /^\{"type":"(snapshot|changes|pong)"(?:,"conflated":(true))?(?:,"from":(\d+))?(?:,"seq":(\d+))?/;

class Subscriber {
  /** The seq it has reached; -1 before its first frame. */
  seq = -1;
  gaps = 0;
  frames = 0;
  conflated = false;
  closeCode: number | undefined;
  /** Payload bytes of its changes frames, and the changes they carried. */
  changeBytes = 0;
  changes = 0;
  /** For the sample: label -> when first seen, and the view (worked out by replay()). */
  readonly seen: Map<string, number> | undefined;
  readonly view: Map<string, string> | undefined;
  private readonly decoder: FrameDecoder | undefined;
  /**
   * For the sample: each frame as it came and when. Decoded after the load (replay()), so that
   * the sample's decoding is not CPU taken from the server during the run.
   */
  private readonly received: { payload: Buffer; at: number; snapshot: boolean }[] = [];
  // The frame being read: its header bytes, then its payload.
  private head = Buffer.alloc(14);
  private headLength = 0;
  private remaining = -1;
  private opcode = 0;
  private payloadLength = 0;
  private kept: Buffer[] = [];
  private keptLength = 0;

  constructor(
    readonly socket: Socket,
    readonly sampled: boolean,
    private readonly format: 'json' | 'compact',
    private readonly layout: string[],
    private readonly first: () => void,
  ) {
    if (sampled) {
      this.seen = new Map();
      this.view = new Map();
      this.decoder = new FrameDecoder();
    }
  }

  /** Reads a chunk of frames, possibly split anywhere. */
  read(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.remaining < 0) {
        this.head[this.headLength++] = chunk[at++]!;
        const needed = this.headerSize();
        if (needed === undefined || this.headLength < needed) continue;
        this.startPayload();
        if (this.remaining > 0) continue;
      } else {
        const take = Math.min(this.remaining, chunk.length - at);
        const keep = this.sampled || this.opcode === 8 ? take : Math.min(take, HEADER_BYTES - this.keptLength);
        if (keep > 0) {
          // A copy: the chunk is the process's one read buffer, overwritten by the next read.
          this.kept.push(Buffer.from(chunk.subarray(at, at + keep)));
          this.keptLength += keep;
        }
        at += take;
        this.remaining -= take;
        if (this.remaining > 0) continue;
      }
      this.frameDone();
    }
  }

  /** The frame header's size once enough of it is read to tell; undefined before. */
  private headerSize(): number | undefined {
    if (this.headLength < 2) return undefined;
    const length = this.head[1]! & 0x7f;
    return length < 126 ? 2 : length === 126 ? 4 : 10;
  }

  private startPayload(): void {
    this.opcode = this.head[0]! & 0x0f;
    const length = this.head[1]! & 0x7f;
    this.payloadLength = length < 126 ? length : length === 126 ? this.head.readUInt16BE(2) : Number(this.head.readBigUInt64BE(2));
    this.remaining = this.payloadLength;
    this.headLength = 0;
  }

  private frameDone(): void {
    const payload = this.kept.length === 1 ? this.kept[0]! : Buffer.concat(this.kept, this.keptLength);
    this.kept = [];
    this.keptLength = 0;
    this.remaining = -1;
    if (this.opcode === 9) return this.pong(payload);
    if (this.opcode === 8) {
      this.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
      this.socket.end();
      return;
    }
    if (this.opcode !== 1 && this.opcode !== 2) return;
    this.frames++;
    const range = this.format === 'compact' ? compactRange(payload) : jsonRange(payload);
    if (!range) return;
    const { snapshot, conflated, from, to } = range;
    if (snapshot) {
      if (this.seq < 0) this.first();
    } else {
      if (from !== this.seq) this.gaps++;
      if (conflated) this.conflated = true;
      else {
        this.changes += to - from;
        this.changeBytes += this.payloadLength;
      }
    }
    this.seq = to;
    if (this.sampled) this.received.push({ payload: sharedPayload(payload), at: performance.timeOrigin + performance.now(), snapshot });
  }

  /** The sample, once the load is over: every change of the frames received, its first receipt, and the view. */
  replay(): void {
    for (const { payload, at, snapshot } of this.received.splice(0)) this.decode(payload, at, snapshot);
  }

  private decode(payload: Buffer, at: number, snapshot: boolean): void {
    const view = this.view!;
    const changes: [string, string][] = [];
    if (this.format === 'compact') {
      const frame = this.decoder!.decode(new Uint8Array(payload.buffer, payload.byteOffset, payload.length));
      for (const entry of frame.entries) if (entry.status !== undefined) changes.push([this.layout[entry.position]!, entry.status]);
    } else {
      const message = JSON.parse(payload.toString()) as { objects?: Record<string, { status: string }>; changes?: { objectLabel: string; status?: string }[] };
      if (message.objects) for (const [label, object] of Object.entries(message.objects)) changes.push([label, object.status]);
      for (const change of message.changes ?? []) if (change.status !== undefined) changes.push([change.objectLabel, change.status]);
    }
    if (snapshot) view.clear();
    for (const [label, status] of changes) {
      if (!this.seen!.has(label)) this.seen!.set(label, at);
      if (status === 'free') view.delete(label);
      else view.set(label, status);
    }
  }

  /** A pong with the ping's payload: a client's frames are masked (here with a zero mask, which leaves the payload as it is). */
  private pong(payload: Buffer): void {
    this.socket.write(Buffer.concat([Buffer.from([0x8a, 0x80 | payload.length, 0, 0, 0, 0]), payload]));
  }
}

/**
 * The sampled subscribers mostly receive the same frames: each payload is kept once (the same
 * bytes, compared in full), not once per subscriber.
 */
const payloads = new Map<string, Buffer[]>();
function sharedPayload(payload: Buffer): Buffer {
  const key = `${payload.length}:${payload.toString('latin1', 0, Math.min(payload.length, 24))}`;
  const same = payloads.get(key);
  if (same === undefined) {
    payloads.set(key, [payload]);
    return payload;
  }
  for (const kept of same) if (kept.equals(payload)) return kept;
  same.push(payload);
  return payload;
}

/** kind, from and to of a compact frame, from its first bytes. */
function compactRange(payload: Buffer): { snapshot: boolean; conflated: boolean; from: number; to: number } | undefined {
  const kind = payload[0];
  let at = 1;
  const varint = () => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = payload[at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  };
  const from = varint();
  const to = varint();
  return { snapshot: kind === SNAPSHOT || kind === SNAPSHOT_RESET, conflated: kind === CONFLATED, from, to };
}

/** The same of a JSON message, from its opening fields. */
function jsonRange(payload: Buffer): { snapshot: boolean; conflated: boolean; from: number; to: number } | undefined {
  const head = JSON_HEAD.exec(payload.toString('latin1', 0, Math.min(payload.length, HEADER_BYTES)));
  if (!head || head[1] === 'pong') return undefined;
  return { snapshot: head[1] === 'snapshot', conflated: head[2] === 'true', from: Number(head[3] ?? -1), to: Number(head[4]) };
}

/** A view's digest: its labels and statuses, sorted. */
export function viewDigest(view: Iterable<[string, string]>): string {
  return createHash('sha1').update([...view].map(([label, status]) => `${label}=${status}`).sort().join('\n')).digest('hex');
}

const subscribers: Subscriber[] = [];
/** Every socket's reads land here (each read is parsed before the next can happen). */
const READ_BUFFER = Buffer.alloc(256 * 1024);
const paused: Socket[] = [];

/** Opens a subscriber; resolves once it has its first frame. */
function open(start: Start, index: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const sampled = isSampled(index, start.count, start.sampled);
    let upgraded = false;
    let response = Buffer.alloc(0);
    const timer = setTimeout(() => reject(new Error(`subscriber ${index}: no first frame within 60 s`)), 60_000);
    // Read into the process's one buffer, straight from libuv (no stream, no Buffer per read);
    // returning false stops reading at once, until the next round resumes it.
    const onread = (length: number): boolean => {
      let chunk = READ_BUFFER.subarray(0, length);
      if (!upgraded) {
        response = Buffer.concat([response, chunk]);
        const end = response.indexOf('\r\n\r\n');
        if (end < 0) return true;
        const status = response.toString('latin1', 0, end).split('\r\n')[0]!;
        if (!/^HTTP\/1\.1 101/.test(status)) {
          reject(new Error(`subscriber ${index}: ${status}`));
          return true;
        }
        upgraded = true;
        chunk = response.subarray(end + 4);
      }
      subscriber.read(chunk);
      // A full buffer: there may be more to read now.
      if (sampled || subscriber.seq < 0 || subscriber.closeCode !== undefined || length === READ_BUFFER.length) return true;
      paused.push(socket);
      return false;
    };
    const socket = connect({ host: start.host, port: start.port, noDelay: true, onread: { buffer: READ_BUFFER, callback: onread } });
    const subscriber = new Subscriber(socket, sampled, start.format, start.layout, resolve);
    socket.on('connect', () => {
      const key = randomBytes(16).toString('base64');
      const headers = Object.entries(start.headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
      socket.write(`GET ${start.path} HTTP/1.1\r\nHost: ${start.host}:${start.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n${headers}\r\n`);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      subscriber.closeCode ??= 1006;
      if (subscriber.seq < 0) reject(new Error(`subscriber ${index} was closed before its first frame (${subscriber.closeCode})`));
    });
    socket.on('error', () => undefined);
    subscribers.push(subscriber);
  });
}

async function finish(message: Finish): Promise<void> {
  const deadline = Date.now() + message.timeoutMs;
  const behind = () => subscribers.filter((s) => s.closeCode === undefined && s.seq < message.lastSeq).length;
  while (behind() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  for (const s of subscribers) if (s.sampled) s.replay();
  const answered = new Map(message.answered);
  const latencies: number[] = [];
  for (const s of subscribers) if (s.seen) for (const [label, at] of s.seen) if (answered.has(label)) latencies.push(at - answered.get(label)!);
  latencies.sort((a, b) => a - b);
  const sample = subscribers.filter((s) => s.view);
  const closed = subscribers.filter((s) => s.closeCode !== undefined);
  const sum = (f: (s: Subscriber) => number) => subscribers.reduce((n, s) => n + f(s), 0);
  process.send!({
    type: 'finished',
    behind: behind(),
    gaps: sum((s) => s.gaps),
    closed: closed.length,
    closedTooSlow: closed.filter((s) => s.closeCode === CLOSE_TOO_SLOW).length,
    conflated: subscribers.filter((s) => s.conflated).length,
    frames: sum((s) => s.frames),
    changeBytes: sum((s) => s.changeBytes),
    changes: sum((s) => s.changes),
    latencies: [percentileOf(latencies, 50), percentileOf(latencies, 99), latencies.length],
    viewMismatches: sample.filter((s) => viewDigest(s.view!) !== message.expectedDigest).length,
    firstView: sample[0] ? [...sample[0].view!] : [],
  });
  for (const s of subscribers) s.socket.destroy();
}

const percentileOf = (sorted: number[], p: number) => (sorted.length === 0 ? -1 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);

process.on('message', (message: Start | Finish) => {
  if (message.type === 'start') {
    setInterval(
      () => {
        for (const socket of paused.splice(0)) socket.resume();
      },
      Math.max(READ_AT_MOST_EVERY_MS, (message.count / READS_PER_SECOND) * 1000),
    );
    void (async () => {
      // Opened in slices: thousands of handshakes at once would time out on a 2-core machine.
      for (let i = 0; i < message.count; i += 250) {
        await Promise.all(Array.from({ length: Math.min(250, message.count - i) }, (_, j) => open(message, i + j)));
      }
      process.send!({ type: 'ready' });
    })().catch((error: Error) => process.send!({ type: 'failed', error: error.message }));
  } else if (message.type === 'finish') void finish(message);
});
