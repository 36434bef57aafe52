import type { ApiError } from '../domain/errors.js';
import { redisOutageAnswer } from '../inventory/redis.js';
import { mongoOutageAnswer } from '../metadata/mongo.js';

/**
 * What a client is told when a request failed because a store could not be reached: Redis's
 * 503 (src/inventory/redis.ts) or MongoDB's (src/metadata/mongo.ts); undefined for any other
 * failure. One answer for the server's requests and for the reports computed in their thread.
 */
export function storeOutageAnswer(error: unknown): ApiError | undefined {
  return redisOutageAnswer(error) ?? mongoOutageAnswer(error);
}
