import { setPriority } from 'node:os';
import { parentPort, type Transferable } from 'node:worker_threads';

// Calls into a reader thread (src/util/readerThread.ts) and their answers, matched by number:
// the caller's side (ThreadCalls) and the thread's (answerCalls). An error crosses as plain
// data; the two sides agree how through `errors`.

/** How an error crosses between the threads: as plain data, made into an error again on arrival. */
export interface ErrorWire {
  toWire(error: unknown): unknown;
  fromWire(wire: unknown): Error;
}

export interface CallMessage<Request> {
  call: number;
  request: Request;
}

export type AnswerMessage<Result> = { call: number; result: Result } | { call: number; error: unknown };

export const isAnswer = (message: unknown): message is AnswerMessage<unknown> =>
  typeof message === 'object' && message !== null && typeof (message as { call?: unknown }).call === 'number';

/** The caller's side: each call waits for its answer, or fails when the thread dies first. */
export class ThreadCalls<Request, Result> {
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (result: Result) => void; reject: (error: Error) => void }>();

  constructor(
    private readonly post: (message: CallMessage<Request>) => boolean,
    private readonly errors: ErrorWire,
    /** The error a call fails with when the thread cannot take it or dies before answering. */
    private readonly unavailable: () => Error,
  ) {}

  get pending(): number {
    return this.waiting.size;
  }

  call(request: Request): Promise<Result> {
    const call = this.next++;
    return new Promise<Result>((resolve, reject) => {
      this.waiting.set(call, { resolve, reject });
      if (!this.post({ call, request })) {
        this.waiting.delete(call);
        reject(this.unavailable());
      }
    });
  }

  /** An answer from the thread. */
  answered(message: AnswerMessage<Result>): void {
    const waiter = this.waiting.get(message.call);
    if (!waiter) return;
    this.waiting.delete(message.call);
    if ('error' in message) waiter.reject(this.errors.fromWire(message.error));
    else waiter.resolve(message.result);
  }

  /** The thread died: every call it had fails. */
  failAll(): void {
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const waiter of waiting) waiter.reject(this.unavailable());
  }
}

/**
 * The thread's side: answers each call with what `handle` resolves to (its transfer list
 * moves Buffers' memory instead of copying it), or with the error it throws.
 */
export function answerCalls<Request, Result>(
  handle: (request: Request) => Promise<{ result: Result; transfer?: Transferable[] }>,
  errors: ErrorWire,
): void {
  parentPort!.on('message', (message: CallMessage<Request>) => {
    handle(message.request).then(
      ({ result, transfer }) => parentPort!.postMessage({ call: message.call, result }, transfer),
      (error: unknown) => parentPort!.postMessage({ call: message.call, error: errors.toWire(error) }),
    );
  });
}

/**
 * Lowers the CPU priority of the calling thread (on Linux, nice applies to the thread that
 * sets it, not the process): when the cores are short, the sale's thread wins.
 */
export function lowerThisThreadPriority(nice: number): void {
  try {
    setPriority(0, nice);
  } catch {
    // Not permitted here (some containers): the thread runs at the process's priority.
  }
}
