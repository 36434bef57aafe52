import { ReplyError } from 'ioredis';
import { unavailable } from './redis.js';
import type { StatusReceiver } from './statusWire.js';

// Acknowledged means replicated (docs/operations.md, "High availability"): with
// REDIS_REPLICA_ACKS=N a status change is answered only after Redis's `WAIT N <ms>`, sent on
// the same connection right behind the calls, says N replicas have everything the
// connection wrote up to it. The calls of a turn of the event loop share one WAIT, written
// last in the turn's write (src/inventory/scripts.ts, corkForTheTurn): a WAIT per call would
// make each call wait a round trip to the replica before Redis reads the next one. Fewer
// than N in time: 503 with `applied: "unknown"` (the primary applied it; a failover before
// a replica had it would lose it). The request record travels with the change, so a retry
// with the same request id is answered from it, exactly once either way.

/** A call's receiver whose answer waits for its turn's WAIT; an error (nothing to confirm) goes on at once. */
class HeldReceiver implements StatusReceiver {
  answered = false;
  reply: unknown;

  constructor(readonly receiver: StatusReceiver) {}

  answer(reply: unknown): void {
    this.answered = true;
    this.reply = reply;
  }

  fail(error: unknown): void {
    this.receiver.fail(error);
  }
}

/** WAIT's answer when fewer than `acks` replicas confirmed within `waitMs`: 503, applied unknown. */
export const notReplicated = (confirmed: number, acks: number, waitMs: number) =>
  unavailable(`${confirmed} of the ${acks} replicas REDIS_REPLICA_ACKS asks for confirmed the change within ${waitMs} ms`, 'unknown');

/** `value` when `confirmed` replicas are enough for `acks`, else the 503 of a change not replicated. */
export const confirmedOr = (confirmed: number, waits: { acks: number; waitMs: number }, value: unknown) =>
  confirmed >= waits.acks ? value : Promise.reject(notReplicated(confirmed, waits.acks, waits.waitMs));

/**
 * What a WAIT that failed makes of the calls before it. An error Redis answered (a node that
 * is a replica now: a demoted primary, or a cluster's old master back before it learned that
 * it is one) leaves them applied there perhaps, and replicated nowhere: 503, applied
 * unknown, as for too few replicas. A dropped connection is no answer: the error goes on as it
 * is, and AtMostOnceCalls sends the calls again (their records answer).
 */
export const waitFailed = (error: unknown) => (error instanceof ReplyError ? unavailable(`Redis answered WAIT with "${(error as Error).message}"`, 'unknown') : error);

export class ReplicaAcks {
  /** The calls written since the last WAIT. */
  private group: HeldReceiver[] = [];

  constructor(
    /** Sends `WAIT acks waitMs` on the calls' connection, answering how many replicas confirmed. */
    private readonly sendWait: (acks: number, waitMs: number) => Promise<number>,
    readonly acks: number,
    readonly waitMs: number,
  ) {}

  /** A receiver for a call about to be written (its answer held: follow). */
  hold(receiver: StatusReceiver): StatusReceiver {
    return new HeldReceiver(receiver);
  }

  /** The call with `receiver` (from hold) was written: the next WAIT covers it; one is sent after this turn at the latest. */
  written(receiver: StatusReceiver): void {
    if (this.group.length === 0) setImmediate(() => this.follow());
    this.group.push(receiver as HeldReceiver);
  }

  /** Writes the WAIT for the calls written since the last one, if any; their answers go out on its reply. */
  follow(): void {
    const group = this.group;
    if (group.length === 0) return;
    this.group = [];
    this.sendWait(this.acks, this.waitMs).then(
      (confirmed) => answerHeld(group, (held) => (confirmed >= this.acks ? held.receiver.answer(held.reply) : held.receiver.fail(notReplicated(confirmed, this.acks, this.waitMs)))),
      // The connection dropped before the WAIT's reply: as if the calls' replies were lost
      // (AtMostOnceCalls sends them again, and their records answer); or Redis refused the
      // WAIT (waitFailed).
      (error: unknown) => answerHeld(group, (held) => held.receiver.fail(waitFailed(error))),
    );
  }
}

/** The calls of a WAIT's group that Redis answered, each once (a call's reply precedes the WAIT's on the connection: each is answered or failed by now). */
function answerHeld(group: HeldReceiver[], answer: (held: HeldReceiver) => void): void {
  for (const held of group) {
    if (!held.answered) continue;
    held.answered = false;
    answer(held);
  }
}

/** How long WAIT waits: the request's timeout less a margin, so the WAIT answers before the request gives up. */
export const waitMsOf = (timeoutMs: number) => Math.max(1, Math.floor(timeoutMs - Math.min(250, timeoutMs / 4)));
