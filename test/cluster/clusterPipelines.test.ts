import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import calculateSlot from 'cluster-key-slot';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisCluster, type RedisClusterNodes } from '../../src/embedded/redisCluster.js';
import { connectRedis, redisOutageAnswer, type RedisClient } from '../../src/inventory/redis.js';

// A pipeline on a Redis Cluster whose master of the slot was killed (no replica takes over):
// ioredis sends it again by itself for as long as its redirections last (6 to 17 s), past the
// command timeout; src/inventory/redis.ts (boundPipelines) bounds it like a command, and its
// error is a 503 (redisOutageAnswer), not a 500. A cluster of this file's own.

const TIMEOUT_MS = 500;
/** What a runner sharing two cores with other files may add to a timer. */
const SLACK_MS = 1_000;

let dir: string;
let nodes: RedisClusterNodes;
let redis: RedisClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'seatsio-cluster-pipelines-'));
  nodes = await startRedisCluster({ dir, masters: 3 });
  redis = connectRedis({ clusterNodes: nodes.addresses.map((a) => ({ host: a.split(':')[0]!, port: Number(a.split(':')[1]) })) }, 'test-pipelines', pino({ level: 'silent' }), { timeoutMs: TIMEOUT_MS });
  await new Promise((resolve) => redis.once('ready', resolve));
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await nodes?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The port of the master that serves `slot`. */
async function masterPortOf(slot: number): Promise<number> {
  const ranges = (await redis.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
  return ranges.find(([from, to]) => from <= slot && slot <= to)![2][1];
}

describe('a pipeline whose slot has no master', () => {
  it('fails within the command timeout, as a 503, while the master is gone (and before the cluster says it is down)', async () => {
    const key = 'pipelined';
    await redis.pipeline().set(key, '1').exec();
    expect(await redis.pipeline().get(key).exec()).toEqual([[null, '1']]);
    const port = await masterPortOf(calculateSlot(key));
    const master = nodes.servers.find((s) => new URL(s.url).port === String(port))!;
    process.kill(master.pid, 'SIGKILL');

    // 4 s: before and after the other masters count it as failed (cluster-node-timeout 2 s) and answer CLUSTERDOWN.
    const until = performance.now() + 4_000;
    const outcomes: { ms: number; status: number | undefined; error: string }[] = [];
    while (performance.now() < until) {
      const started = performance.now();
      const error = await Promise.all([redis.pipeline().get(key).exec(), redis.multi().get(key).exec()]).then(
        (results) => results.flatMap((result) => result ?? []).find(([e]) => e)?.[0] ?? new Error('answered'),
        (e: unknown) => e as Error,
      );
      outcomes.push({ ms: Math.round(performance.now() - started), status: redisOutageAnswer(error)?.status, error: error.message });
    }
    expect(outcomes.length).toBeGreaterThan(2);
    expect(outcomes.filter((o) => o.ms > TIMEOUT_MS + SLACK_MS || o.status !== 503)).toEqual([]);
  }, 30_000);
});
