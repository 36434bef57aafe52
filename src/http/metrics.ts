// Prometheus text exposition of request counts and latency per route and status.
// Small enough to write here: one counter and one histogram, labelled by route pattern
// (not raw path, so labels stay bounded) and status code; and the number of requests each
// call of the status function carried (batched calls: docs/performance.md, "Batched calls");
// and the gauges other parts read out when /metrics is asked (gaugesFrom), so this file
// knows none of them.

const BUCKETS_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Requests per status call: a lone call is 1. */
const CALL_REQUEST_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128];

interface Series {
  route: string;
  status: number;
  count: number;
  sum: number;
  buckets: number[];
}

export class Metrics {
  /** Per route name, its series by status. Route names are one string per route (RouteTable), so looking one up hashes nothing. */
  private readonly byRoute = new Map<string, Map<number, Series>>();
  private readonly startedAt = Date.now();
  /** Status calls by how many requests each carried (CALL_REQUEST_BUCKETS, not cumulative here), their count and their requests. */
  private readonly callRequests = CALL_REQUEST_BUCKETS.map(() => 0);
  private calls = 0;
  private callRequestSum = 0;
  private readonly gaugeReaders: (() => Record<string, number>)[] = [];

  /** Gauges read from another part each time the metrics are rendered. */
  gaugesFrom(read: () => Record<string, number>): void {
    this.gaugeReaders.push(read);
  }

  /** One call of the status function sent, carrying `requests` requests. */
  observeStatusCall(requests: number): void {
    this.calls++;
    this.callRequestSum += requests;
    let i = 0;
    while (i < CALL_REQUEST_BUCKETS.length - 1 && requests > CALL_REQUEST_BUCKETS[i]!) i++;
    this.callRequests[i]!++;
  }

  observe(route: string, status: number, seconds: number): void {
    let statuses = this.byRoute.get(route);
    if (!statuses) this.byRoute.set(route, (statuses = new Map()));
    let series = statuses.get(status);
    if (!series) {
      series = { route, status, count: 0, sum: 0, buckets: BUCKETS_SECONDS.map(() => 0) };
      statuses.set(status, series);
    }
    series.count++;
    series.sum += seconds;
    for (let i = 0; i < BUCKETS_SECONDS.length; i++) if (seconds <= BUCKETS_SECONDS[i]!) series.buckets[i]!++;
  }

  render(gauges: Record<string, number> = {}): string {
    const lines: string[] = [];
    lines.push('# HELP http_requests_total HTTP requests answered, by route and status.');
    lines.push('# TYPE http_requests_total counter');
    const all = [...this.byRoute.values()].flatMap((statuses) => [...statuses.values()]);
    for (const s of all) lines.push(`http_requests_total{${labels(s)}} ${s.count}`);
    lines.push('# HELP http_request_duration_seconds Time from request start to response end.');
    lines.push('# TYPE http_request_duration_seconds histogram');
    for (const s of all) {
      const l = labels(s);
      BUCKETS_SECONDS.forEach((le, i) => lines.push(`http_request_duration_seconds_bucket{${l},le="${le}"} ${s.buckets[i]}`));
      lines.push(`http_request_duration_seconds_bucket{${l},le="+Inf"} ${s.count}`);
      lines.push(`http_request_duration_seconds_sum{${l}} ${s.sum}`);
      lines.push(`http_request_duration_seconds_count{${l}} ${s.count}`);
    }
    lines.push('# HELP status_call_requests Requests carried by each call of the status function (1: a lone call).');
    lines.push('# TYPE status_call_requests histogram');
    let below = 0;
    CALL_REQUEST_BUCKETS.forEach((le, i) => {
      below += this.callRequests[i]!;
      lines.push(`status_call_requests_bucket{le="${le}"} ${i === CALL_REQUEST_BUCKETS.length - 1 ? this.calls : below}`);
    });
    lines.push(`status_call_requests_bucket{le="+Inf"} ${this.calls}`);
    lines.push(`status_call_requests_sum ${this.callRequestSum}`);
    lines.push(`status_call_requests_count ${this.calls}`);
    const memory = process.memoryUsage();
    const gaugeValues: Record<string, number> = {
      process_resident_memory_bytes: memory.rss,
      process_heap_used_bytes: memory.heapUsed,
      // What the heap holds (used: live objects and garbage not yet collected) and native
      // memory outside it (Buffers): RSS minus these two is the process's own native memory.
      process_heap_total_bytes: memory.heapTotal,
      process_external_bytes: memory.external,
      process_uptime_seconds: (Date.now() - this.startedAt) / 1000,
    };
    for (const read of this.gaugeReaders) Object.assign(gaugeValues, read());
    Object.assign(gaugeValues, gauges);
    for (const [name, value] of Object.entries(gaugeValues)) {
      lines.push(`# TYPE ${name} gauge`);
      lines.push(`${name} ${value}`);
    }
    return lines.join('\n') + '\n';
  }
}

const escape = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labels = (s: Series) => `route="${escape(s.route)}",status="${s.status}"`;
