import type { Redis } from 'ioredis';
import type { Db } from 'mongodb';
import type { Metrics } from '../http/metrics.js';
import type { HoldTokens } from '../inventory/holdTokens.js';
import type { ScriptCall } from '../inventory/scripts.js';
import type { InvalidationBus } from '../metadata/invalidationBus.js';
import type { Repositories } from '../metadata/repositories.js';
import type { TenantCache } from '../metadata/tenantCache.js';

/** What route handlers may use; built once in app.ts. */
export interface ApiDeps {
  repos: Repositories;
  tenants: TenantCache;
  bus: InvalidationBus;
  redis: Redis;
  db: Db;
  metrics: Metrics;
  holdTokens: HoldTokens;
  /** The Lua scripts of lua/, by camelCase name. */
  scripts: Record<string, ScriptCall>;
  /** PUBLIC_URL: where clients reach this server, for URLs in responses. */
  publicUrl: string | undefined;
  inFlightRequests: () => number;
  /** True once a shutdown began: /ready answers 503 so load balancers stop sending. */
  isDraining: () => boolean;
}
