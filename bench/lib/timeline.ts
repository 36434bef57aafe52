import { percentile } from './percentile.js';

// What a scenario's answers did second by second, and how their times spread: the plots of
// the HTML report (bench/lib/htmlReport.ts), kept in the JSON report as `timelines` so a later
// run's `--compare` can overlay them. measure() tells the recording of every answer; bench/run.ts
// starts a recording right before a scenario's timed run and stops it right after, so warm-ups,
// set-up calls and the alternating rounds stay out. One scenario runs at a time, so one
// recording at a time is kept here rather than passed through every scenario.

export interface Timeline {
  /** Answers per second (any status), second by second from the scenario's first load. */
  rps: number[];
  /** Answers other than 2xx per second. */
  non2xx: number[];
  /** The median and the 99th percentile of each second's 2xx answers' times, in ms; null for a second without any. */
  p50Ms: (number | null)[];
  p99Ms: (number | null)[];
  /**
   * The 2xx answers' times in buckets of a tenth of a decade: [upper bound in ms, answers]
   * for each bucket that has any, fastest first. Fixed bounds, so two runs' buckets line up.
   */
  latencyHistogram: [number, number][];
}

/** A last second shorter than this is left out: its few answers would read as a drop of rps. */
const SHORTEST_LAST_SECOND = 0.25;

export class TimelineRecording {
  /** When the first load of the recording started (performance.now()); undefined until then. */
  private origin: number | undefined;
  /** When the last answer came: the end of the recording's last second. */
  private last = 0;
  private readonly answers: number[] = [];
  private readonly refused: number[] = [];
  private readonly times: number[][] = [];
  private readonly buckets = new Map<number, number>();

  loadStarted(now: number): void {
    this.origin ??= now;
  }

  answer(now: number, status: number, ms: number): void {
    this.last = now;
    const second = Math.floor((now - (this.origin ?? now)) / 1000);
    while (this.answers.length <= second) {
      this.answers.push(0);
      this.refused.push(0);
      this.times.push([]);
    }
    this.answers[second]!++;
    if (status >= 200 && status < 300) {
      this.times[second]!.push(ms);
      const bucket = bucketOf(ms);
      this.buckets.set(bucket, (this.buckets.get(bucket) ?? 0) + 1);
    } else this.refused[second]!++;
  }

  stop(): Timeline | undefined {
    if (this.origin === undefined || this.answers.length === 0) return undefined;
    // The last second counted up to the last answer; dropped when that came early in it
    // (the answers still in flight when the load stopped).
    const lastLength = Math.min(1, (this.last - this.origin) / 1000 - (this.answers.length - 1));
    const keep = lastLength < SHORTEST_LAST_SECOND && this.answers.length > 1 ? this.answers.length - 1 : this.answers.length;
    const perSecond = (count: number, i: number) => (i === this.answers.length - 1 && lastLength > 0 ? Math.round(count / lastLength) : count);
    const at = (times: number[], p: number) => (times.length === 0 ? null : Math.round(percentile(times, p) * 100) / 100);
    const sorted = this.times.slice(0, keep).map((times) => times.sort((a, b) => a - b));
    return {
      rps: this.answers.slice(0, keep).map(perSecond),
      non2xx: this.refused.slice(0, keep).map(perSecond),
      p50Ms: sorted.map((times) => at(times, 50)),
      p99Ms: sorted.map((times) => at(times, 99)),
      latencyHistogram: [...this.buckets].sort((a, b) => a[0] - b[0]).map(([bucket, count]) => [upperBoundMs(bucket), count]),
    };
  }
}

/** The bucket of a time: the tenth of a decade it is in, from above (1 ms is bucket 0, up to 1.26 ms bucket 1). */
export const bucketOf = (ms: number): number => Math.ceil(10 * Math.log10(Math.max(ms, 0.001)) - 1e-9);

/** A bucket's upper bound in ms, to 3 significant digits. */
export const upperBoundMs = (bucket: number): number => Number((10 ** (bucket / 10)).toPrecision(3));

let recording: TimelineRecording | undefined;

/** Starts recording the answers measure() hears of, until stopTimeline. */
export function startTimeline(): void {
  recording = new TimelineRecording();
}

/** Ends the recording: its timeline, or undefined when no load ran meanwhile. */
export function stopTimeline(): Timeline | undefined {
  const timeline = recording?.stop();
  recording = undefined;
  return timeline;
}

/** measure() starts load: the recording's seconds count from its first. */
export function timelineLoadStarted(): void {
  recording?.loadStarted(performance.now());
}

/** measure() heard an answer: its status and its time from request to answer, in ms. */
export function timelineAnswer(status: number, ms: number): void {
  recording?.answer(performance.now(), status, ms);
}
