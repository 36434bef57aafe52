import { ALL_CORES } from '../util/gzipStream.js';
import { yieldToEventLoop, type Pause } from '../util/slices.js';

// Where report work runs (docs/reports.md, "Big events"): one report at a time per
// process, its slices pausing long enough for other requests to keep the event loop. A
// report waiting its turn shares the work of an identical one that is also still waiting:
// that work starts after both arrived, so each sees every change acknowledged before it.

/**
 * While other requests are in flight, a report rests this many times as long as its last
 * slice took: reports then take at most a ninth of the event loop, and the sales flow keeps
 * the rest (at four times, book2 kept under 80 % of its rate on the 2-core bench machine: the
 * reports' Redis reads and compression take CPU beside the loop). With nothing else in
 * flight it only yields.
 */
const REST_FACTOR = 8;

/** How a report's work makes room for other requests: rests between slices, and how many blocks of its body it compresses at once. */
export interface ReportPace {
  pause: Pause;
  compressionWidth: () => number;
}

interface Job {
  key: string;
  started: boolean;
  result: Promise<unknown>;
  start: () => void;
}

export class ReportLane implements ReportPace {
  private readonly waiting: Job[] = [];
  private running = false;
  /** Report requests in the lane (waiting or running): they are not "other" requests. */
  private held = 0;

  /** `inFlight`: the requests the server is answering now, reports included. */
  constructor(private readonly inFlight: () => number) {}

  /** Between slices: rest while other requests wait, else just yield. */
  readonly pause: Pause = (sliceMs) =>
    this.othersInFlight() ? new Promise((resolve) => setTimeout(resolve, Math.max(1, sliceMs * REST_FACTOR))) : yieldToEventLoop();

  /**
   * Blocks of a report's body compressed at once (src/util/gzipStream.ts): one while other
   * requests are in flight, as one zlib stream was, so compression on the thread pool does
   * not take the cores the sales flow and Redis need; else one per core.
   */
  readonly compressionWidth = (): number => (this.othersInFlight() ? 1 : ALL_CORES());

  /** Whether requests other than reports are being answered (the sales flow). */
  private othersInFlight(): boolean {
    return this.inFlight() > this.held;
  }

  /** Runs `work` in its turn; a waiting job with the same key answers both. */
  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    this.held++;
    try {
      const same = this.waiting.find((job) => job.key === key && !job.started);
      if (same) return (await same.result) as T;
      let start!: () => void;
      const turn = new Promise<void>((resolve) => (start = resolve));
      const job: Job = { key, started: false, start, result: turn.then(work) };
      this.waiting.push(job);
      const finished = () => {
        this.running = false;
        this.next();
      };
      job.result.then(finished, finished);
      this.next();
      return (await job.result) as T;
    } finally {
      this.held--;
    }
  }

  private next(): void {
    if (this.running) return;
    const job = this.waiting.shift();
    if (!job) return;
    this.running = true;
    job.started = true;
    job.start();
  }
}
