import { measure, measured, type Figures } from '../lib/measure.js';
import type { BenchContext } from './context.js';

// chartLoad: what opening a seat map costs the server (GET /events/{key}/layout, docs/api.md),
// while nothing else runs. The run's connections load the layout of an event on the
// 10,000-seat chart with `Accept-Encoding: gzip, br` (brotli answers); then /health; then the
// layout again with If-None-Match of its ETag (304s, what a seat map opened before costs).
// `bytesPerAnswer`: bytes read per answer, headers included, from autocannon's totals;
// `notModifiedToHealth`: the 304s' rps over /health's just before them (target ≥ 0.8).

export async function chartLoad(ctx: BenchContext): Promise<Figures> {
  const [event] = await ctx.newEvents(ctx.charts.seats10k, 1);
  const url = `${ctx.serverUrl}/events/${encodeURIComponent(event!.key)}/layout`;
  const headers = { authorization: ctx.workspaceHeaders.authorization!, 'accept-encoding': 'gzip, br' };
  // Untimed: the first answer of each coding makes its bytes. Each one's size as sent.
  const sizes: Record<string, number> = {};
  let etag = '';
  for (const coding of ['identity', 'gzip', 'br']) {
    const sample = await fetch(url, { headers: { ...headers, 'accept-encoding': coding } });
    await sample.arrayBuffer();
    if (sample.status !== 200 || (sample.headers.get('content-encoding') ?? 'identity') !== coding) throw new Error(`chartLoad: the layout in ${coding} answered ${sample.status} ${sample.headers.get('content-encoding')}`);
    sizes[coding] = Number(sample.headers.get('content-length'));
    etag = sample.headers.get('etag')!;
  }
  // Each run's server CPU per request too: what the rps of a machine shared with others hides.
  // Only of a server the bench started (not with --target).
  const cpuNow = () => ctx.serverCpuSeconds?.() ?? NaN;
  const cpu: number[] = [cpuNow()];
  const loads = await measured(ctx.settings, { url, headers });
  cpu.push(cpuNow());
  const health = await measure(ctx.settings, { url: `${ctx.serverUrl}/health` });
  cpu.push(cpuNow());
  const revalidations = await measured(ctx.settings, { url, headers: { ...headers, 'if-none-match': etag } });
  cpu.push(cpuNow());
  const usPerRequest = (run: number, requests: number) => (Number.isNaN(cpu[run]!) ? undefined : Math.round(((cpu[run + 1]! - cpu[run]!) * 1e7) / Math.max(1, requests)) / 10);
  const healthUs = usPerRequest(1, health.requests);
  const notModifiedUs = usPerRequest(2, revalidations.figures.requests);
  // Measured as /health's rps is (autocannon's mean per second), counting only the 304s.
  const notModified = revalidations.result.statusCodeStats?.['304']?.count ?? 0;
  const notModifiedRps = Math.round((revalidations.figures.rps * notModified) / Math.max(1, revalidations.figures.requests));
  return {
    ...loads.figures,
    bytesPerAnswer: Math.round(loads.result.throughput.total / Math.max(1, loads.result.requests.total)),
    layoutJsonBytes: sizes.identity,
    layoutGzipBytes: sizes.gzip,
    layoutBrBytes: sizes.br,
    healthRps: health.rps,
    notModifiedRps,
    notModifiedP99MsWhole: revalidations.result.latency.p99,
    notModifiedBytesPerAnswer: Math.round(revalidations.result.throughput.total / Math.max(1, revalidations.result.requests.total)),
    notModifiedToHealth: Math.round((notModifiedRps / health.rps) * 1000) / 1000,
    loadServerUsPerRequest: usPerRequest(0, loads.figures.requests),
    healthServerUsPerRequest: healthUs,
    notModifiedServerUsPerRequest: notModifiedUs,
    notModifiedServerUsToHealth: notModifiedUs === undefined || healthUs === undefined ? undefined : Math.round((notModifiedUs / healthUs) * 100) / 100,
    // Answers other than 200, 2xx and 304 in their runs.
    non2xx: loads.figures.non2xx + health.non2xx + revalidations.result.requests.total - notModified,
    errors: loads.figures.errors + health.errors + revalidations.figures.errors,
  };
}
