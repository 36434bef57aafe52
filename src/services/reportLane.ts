import { yieldToEventLoop, type Pause } from '../util/slices.js';

// Where report work runs (docs/reports.md, "The report thread"): in the report thread
// (src/reportThread.ts), one report at a time, the others waiting their turn. A report
// waiting its turn shares the work of an identical one that is also still waiting: that work
// starts after both arrived, so each sees every change acknowledged before it.
// Between slices a report rests while the server answers other requests (the sales flow),
// and otherwise only yields. The thread runs at a lower CPU priority than the sale's too,
// but that alone does not keep reports out of the sale's way: with cores to spare, a report
// reads Redis and takes memory and caches as fast as it goes (docs/reports.md, "The report
// thread").

/**
 * While other requests are in flight, a report rests this many times as long as its last
 * slice took: reports then take at most a ninth of the time, and the sales flow the rest.
 */
const REST_FACTOR = 8;

/** How a report's work is paced: what runs between slices, and how many blocks of its body are compressed at once (src/util/gzipStream.ts). */
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

  /**
   * `compressionWidth`: blocks of a body compressed at once, as GzipStream takes it;
   * `inFlight`: the requests the server is answering now, reports included.
   */
  constructor(
    readonly compressionWidth: () => number,
    private readonly inFlight: () => number,
  ) {}

  /** Between slices: rest while other requests are in flight, else just yield. */
  readonly pause: Pause = (sliceMs) =>
    this.inFlight() > this.held ? new Promise((resolve) => setTimeout(resolve, Math.max(1, sliceMs * REST_FACTOR))) : yieldToEventLoop();

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
