import autocannon from 'autocannon';
import { checkOrigin } from './loadOrigin.js';
import { percentile } from './percentile.js';
import { timelineAnswer, timelineLoadStarted } from './timeline.js';

// One autocannon run and the figures every scenario reports. Scenarios add their own
// checks (double bookings, oversold places) next to these.

export interface Figures {
  rps: number;
  /** The median and the 99th percentile of the 2xx answers' times, to 0.01 ms (measure). */
  p50Ms: number;
  p99Ms: number;
  /** Answers other than 2xx (refusals a scenario expects are counted here too). */
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  requests: number;
  ratioToCeiling?: number;
  [figure: string]: number | undefined;
}

export interface LoadSettings {
  connections: number;
  durationSeconds: number;
  /**
   * Requests per second over all connections of a timed run (autocannon's overallRate);
   * unset, each connection sends its next request as soon as its answer came.
   */
  rate?: number;
}

export { percentile };

/** Runs autocannon with the run's settings unless `options` overrides them. */
export async function measure(settings: LoadSettings, options: autocannon.Options): Promise<Figures> {
  return (await measured(settings, options)).figures;
}

/** `measure`'s figures, and autocannon's result they came from (its status codes, its bytes). */
export async function measured(settings: LoadSettings, options: autocannon.Options): Promise<{ figures: Figures; result: autocannon.Result }> {
  // With --target, load goes to the target alone (bench/lib/loadOrigin.ts).
  checkOrigin(options.url);
  // A scenario bounded by `amount` runs until that many answers came, however long it takes,
  // at whatever rate its connections make (its concurrency is what it tests).
  // At a set rate autocannon would add made-up answers for each slow one (its correction for
  // coordinated omission) to its latencies; the bench's own figures are the answers' times
  // alone, and autocannon's p99 is kept beside them as a check of the same thing.
  const bound = options.amount ? {} : { duration: settings.durationSeconds, ...(settings.rate ? { overallRate: settings.rate, ignoreCoordinatedOmission: true } : {}) };
  // Without a callback autocannon returns its instance, which is also a promise of the result.
  const run = autocannon({ connections: settings.connections, ...bound, ...options }) as unknown as autocannon.Instance & Promise<autocannon.Result>;
  // A run bounded by `amount` lasts a few seconds: its per-second samples say little, and
  // autocannon ends it (and its `duration`) at the next whole second after the last answer,
  // so its rps is timed here, from the start to the last answer.
  const started = performance.now();
  let lastAnswer = started;
  // The run's timeline, if one is recorded (bench/lib/timeline.ts).
  timelineLoadStarted();
  // Every 2xx answer's time, as autocannon counts it for its latency figures (from the request
  // sent to the answer read), kept to the microsecond: autocannon's histogram keeps whole
  // milliseconds, so a p99 of 5 to 9 ms, and a ratio of two, moved in steps of 0.1-0.2.
  const times: number[] = [];
  run.on('response', (_client, status, _bytes, ms) => {
    lastAnswer = performance.now();
    if (status >= 200 && status < 300) times.push(ms);
    timelineAnswer(status, ms);
  });
  const result = await run;
  times.sort((a, b) => a - b);
  const at = (p: number) => Math.round(percentile(times, p) * 100) / 100;
  const figures = {
    rps: Math.round(options.amount ? result.requests.total / ((lastAnswer - started) / 1000) : result.requests.average),
    p50Ms: times.length > 0 ? at(50) : result.latency.p50,
    p99Ms: times.length > 0 ? at(99) : result.latency.p99,
    // autocannon's own p99, in whole milliseconds (p99Ms is to the hundredth, from every answer's time).
    p99MsWhole: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    requests: result.requests.total,
  };
  return { figures, result };
}

/**
 * Requests whose body is made per request by `next` (for example the next two free seats),
 * with `onStatus` told each answer's status together with what `next` returned for it.
 * autocannon keeps one context per connection and one request in flight per connection,
 * so the context carries a request's own data to its answer.
 */
export function generatedRequests<T>(options: {
  headers: Record<string, string>;
  next: () => { path: string; body?: string; data: T };
  onStatus?: (status: number, data: T) => void;
}): autocannon.Request[] {
  return [
    {
      method: 'POST',
      headers: options.headers,
      setupRequest: (request, context: { data?: T }) => {
        const made = options.next();
        context.data = made.data;
        return { ...request, path: made.path, body: made.body };
      },
      onResponse: (status, _body, context: { data?: T }) => {
        if (options.onStatus && context.data !== undefined) options.onStatus(status, context.data);
      },
    },
  ];
}

export const basicAuth = (key: string) => 'Basic ' + Buffer.from(`${key}:`).toString('base64');
