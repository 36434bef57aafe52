import { ApiError } from '../domain/errors.js';
import type { Metrics } from '../http/metrics.js';
import { ok, publicRoute, type Reply, type RouteDef } from '../http/route.js';
import type { ServerStatus } from '../http/serverStatus.js';
import type { HealthChecks } from '../services/healthChecks.js';
import type { HistoryStreams } from '../inventory/historyStreams.js';

/** /health's answer, made once: load balancers ask it many times a second. */
const HEALTHY: Reply = Object.freeze({ status: 200, body: Buffer.from('{"status":"UP"}'), contentType: 'application/json' });

// Health, readiness and metrics: no authentication, for orchestrators and monitoring.

export function operationRoutes(health: HealthChecks, status: ServerStatus, metrics: Metrics, history: HistoryStreams): RouteDef[] {
  return [
    // Liveness: the process answers. No dependency is checked, so a Redis outage does not
    // make an orchestrator restart every server at once.
    publicRoute({ method: 'GET', path: '/health', summary: 'Liveness: the process answers', answers: { 200: '{status: UP}' }, handler: () => HEALTHY }),

    publicRoute({
      method: 'GET',
      path: '/ready',
      summary: 'Readiness: whether Redis and MongoDB answer',
      answers: { 200: 'ready' },
      handler: async () => {
        if (status.draining) throw new ApiError(503, 'NOT_READY', 'shutting down');
        const down = await health.failing();
        if (down.length > 0) {
          throw new ApiError(503, 'NOT_READY', down.map((c) => `${c.name}: ${c.error}`).join('; '));
        }
        return ok({ status: 'READY', redis: 'UP', mongodb: 'UP' });
      },
    }),

    publicRoute({
      method: 'GET',
      path: '/metrics',
      summary: 'Prometheus metrics',
      answers: { 200: 'metrics in the Prometheus text format' },
      produces: 'text/plain',
      handler: async () => {
        // The history drain's progress is kept in Redis by whichever process drains; without
        // Redis the rest of the metrics still answer.
        const drain = await history.progress().catch(() => undefined);
        const gauges: Record<string, number> = { http_requests_in_flight: status.inFlight };
        if (drain) {
          gauges.history_drain_lag_seconds = drain.oldestWaiting > 0 ? Math.max(0, Date.now() - drain.oldestWaiting) / 1000 : 0;
          gauges.history_pending_streams = drain.pendingStreams;
          gauges.history_changes_stored_total = drain.stored;
          if (drain.at > 0) gauges.history_drain_last_run_seconds_ago = Math.max(0, Date.now() - drain.at) / 1000;
        }
        return { status: 200, contentType: 'text/plain; version=0.0.4; charset=utf-8', body: metrics.render(gauges) };
      },
    }),
  ];
}
