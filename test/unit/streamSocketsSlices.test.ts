import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { WorkspaceDoc } from '../../src/domain/tenant.js';
import type { FromStream, ToStream } from '../../src/services/streamFollowers.js';
import { StreamSockets, WRITES_PER_TURN, type StreamSocket, type Subscriber } from '../../src/services/streamSockets.js';
import type { ReaderThread } from '../../src/util/readerThread.js';

// The server's thread writes a tick's frame to an event's subscribers in slices of
// WRITES_PER_TURN sockets per turn of the event loop (src/services/streamSockets.ts), so the
// bookings that come in meanwhile are served between slices. The sockets here record what is
// written to them; the stream's thread is replaced by one that delivers what the test says.

const COMPACT = 2;

class RecordingSocket implements StreamSocket {
  readonly written: number[] = [];
  constructor(private readonly subscriber: Subscriber) {}
  getUserData(): Subscriber {
    return this.subscriber;
  }
  send(message: Uint8Array): number {
    if (this.subscriber.state === 'closed') throw new Error('a write to a closed socket');
    this.written.push(message[0]!);
    return 1;
  }
  getBufferedAmount(): number {
    return 0;
  }
  end(): void {
    this.subscriber.state = 'closed';
  }
}

function setUp(count: number) {
  let deliver: (message: FromStream) => void = () => undefined;
  /** What the server's thread told the stream's thread, but for joins. */
  const told: ToStream[] = [];
  const post = (message: ToStream) => {
    if (message.t !== 'join') told.push(message);
    return true;
  };
  const thread = { start: () => undefined, post, stop: async () => undefined } as unknown as ReaderThread<ToStream, FromStream>;
  const sockets = new StreamSockets({
    limits: { maxSubscribers: 100_000, maxEventSubscribers: 100_000, retainedChanges: 1_000, tickMs: 100, blockedCloseMs: 30_000 },
    thread: (toServer) => {
      deliver = toServer;
      return thread;
    },
  });
  const all = Array.from({ length: count }, () => new RecordingSocket(sockets.admit({} as WorkspaceDoc, 1, 'event', COMPACT, undefined)));
  for (const ws of all) sockets.join(ws);
  // Each one current at seq 0, with no bytes of its own.
  deliver({ t: 'send', ids: all.map((ws) => ws.getUserData().id), gen: 1, to: 0, bytes: undefined, binary: true });
  const frame = (marker: number, to: number): FromStream => ({ t: 'frame', eventId: 1, gen: 1, to, bytes: [undefined, undefined, Uint8Array.of(marker), undefined] });
  return { sockets, all, told, deliver: (message: FromStream) => deliver(message), frame };
}

const writes = (all: RecordingSocket[]) => all.reduce((n, ws) => n + ws.written.length, 0);

describe('a frame for more subscribers than one turn writes', () => {
  it('writes WRITES_PER_TURN of them at once and the rest in later turns, every frame to every subscriber in order', async () => {
    const count = WRITES_PER_TURN * 3 + 10;
    const { all, deliver, frame } = setUp(count);
    deliver(frame(1, 5));
    deliver(frame(2, 9));
    expect(writes(all)).toBe(WRITES_PER_TURN);
    await nextTurn();
    expect(writes(all)).toBe(WRITES_PER_TURN * 2);
    for (let turn = 0; turn < 10; turn++) await nextTurn();
    expect(writes(all)).toBe(count * 2);
    expect(new Set(all.map((ws) => ws.written.join(',')))).toEqual(new Set(['1,2']));
    expect(new Set(all.map((ws) => ws.getUserData().seq))).toEqual(new Set([9]));
  });

  it("tells the stream's thread each frame is written once its last slice is, and at once for an event with no subscriber here", async () => {
    const { all, told, deliver, frame } = setUp(WRITES_PER_TURN + 1);
    deliver(frame(1, 5));
    expect(told).toEqual([]);
    await nextTurn();
    expect(writes(all)).toBe(WRITES_PER_TURN + 1);
    expect(told).toEqual([{ t: 'written', eventId: 1 }]);
    deliver({ t: 'frame', eventId: 2, gen: 1, to: 3, bytes: [Uint8Array.of(9)] });
    expect(told).toEqual([{ t: 'written', eventId: 1 }, { t: 'written', eventId: 2 }]);
  });

  it('sends what the thread sent after a frame only once that frame is written, and writes nothing to a subscriber gone meanwhile', async () => {
    const { sockets, all, deliver, frame } = setUp(WRITES_PER_TURN * 2);
    deliver(frame(1, 5));
    const last = all[all.length - 1]!;
    const gone = all[all.length - 2]!;
    sockets.leave(gone);
    // A catch-up for the last one: it must not overtake the frame still being written.
    last.getUserData().state = 'catching';
    deliver({ t: 'send', ids: [last.getUserData().id], gen: 1, to: 7, bytes: Uint8Array.of(3), binary: true });
    expect(last.written).toEqual([]);
    for (let turn = 0; turn < 5; turn++) await nextTurn();
    expect(gone.written).toEqual([]);
    // It was catching when the frame reached it: skipped by the frame, then its catch-up.
    expect(last.written).toEqual([3]);
    expect(last.getUserData().seq).toBe(7);
    expect(all.slice(0, -2).every((ws) => ws.written.join(',') === '1')).toBe(true);
  });
});
