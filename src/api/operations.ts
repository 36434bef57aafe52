import { ApiError } from '../domain/errors.js';
import { pingRedis } from '../inventory/redis.js';
import { pingMongo } from '../metadata/mongo.js';
import { ok, publicRoute, type RouteDef } from '../http/route.js';
import type { ApiDeps } from './deps.js';

const READY_TIMEOUT_MS = 2_000;

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} did not answer within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS)),
  ]);
}

async function check(name: string, probe: () => Promise<void>): Promise<{ name: string; up: boolean; error?: string }> {
  try {
    await withTimeout(probe(), name);
    return { name, up: true };
  } catch (error) {
    return { name, up: false, error: (error as Error).message };
  }
}

export function operationRoutes(deps: ApiDeps): RouteDef[] {
  return [
    // Liveness: the process answers. No dependency is checked, so a Redis outage does not
    // make an orchestrator restart every server at once.
    publicRoute({ method: 'GET', path: '/health', handler: () => ok({ status: 'UP' }) }),

    publicRoute({
      method: 'GET',
      path: '/ready',
      handler: async () => {
        if (deps.isDraining()) throw new ApiError(503, 'NOT_READY', 'shutting down');
        const checks = await Promise.all([check('redis', () => pingRedis(deps.redis)), check('mongodb', () => pingMongo(deps.db))]);
        const down = checks.filter((c) => !c.up);
        if (down.length > 0) {
          throw new ApiError(503, 'NOT_READY', down.map((c) => `${c.name}: ${c.error}`).join('; '));
        }
        return ok({ status: 'READY', redis: 'UP', mongodb: 'UP' });
      },
    }),

    publicRoute({
      method: 'GET',
      path: '/metrics',
      handler: () => ({
        status: 200,
        contentType: 'text/plain; version=0.0.4; charset=utf-8',
        body: deps.metrics.render({ http_requests_in_flight: deps.inFlightRequests() }),
      }),
    }),
  ];
}
