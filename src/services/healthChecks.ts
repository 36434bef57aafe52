import type { RedisClient } from '../inventory/redis.js';
import type { Db } from 'mongodb';
import { pingRedis } from '../inventory/redis.js';
import { pingMongo } from '../metadata/mongo.js';
import { withTimeout } from '../util/timeout.js';

// Readiness: whether the stores this process needs answer right now.

/** Short enough that /ready turns 503 within a second of a store freezing. */
const READY_TIMEOUT_MS = 800;

export interface FailedCheck {
  name: string;
  error: string;
}

export class HealthChecks {
  constructor(
    private readonly redis: RedisClient[],
    private readonly db: Db,
  ) {}

  /** The stores that did not answer within 800 ms; empty when all are up. */
  async failing(): Promise<FailedCheck[]> {
    const checks = await Promise.all([check('redis', () => Promise.all(this.redis.map(pingRedis)).then(() => undefined)), check('mongodb', () => pingMongo(this.db))]);
    return checks.filter((c): c is FailedCheck => c !== undefined);
  }
}

async function check(name: string, probe: () => Promise<void>): Promise<FailedCheck | undefined> {
  try {
    await withTimeout(probe(), READY_TIMEOUT_MS, name);
    return undefined;
  } catch (error) {
    return { name, error: (error as Error).message };
  }
}
