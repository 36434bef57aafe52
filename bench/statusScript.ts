import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { buildObjectIndex } from '../src/domain/objectIndex.js';
import { planChange } from '../src/domain/statusChangeRequest.js';
import { startRedisServer } from '../src/embedded/redisServer.js';
import { AtMostOnceCalls } from '../src/inventory/atMostOnce.js';
import { RedisClock } from '../src/inventory/redisClock.js';
import { Scripts } from '../src/inventory/scripts.js';
import { applyStatusChanges } from '../src/inventory/statusChanges.js';
import { generatedDrawing } from './drawings.js';

// `npm run bench:script`: what Redis spends per call of the status script (a Redis function,
// FCALL) for a 2-seat booking (INFO commandstats), with nothing else on that Redis, beside a plain script that
// only reads and writes the two seats' records (HGET, HSET) in the same run: the ratio of
// the two says how much the rules, the history and the bookkeeping add, whatever the
// machine's speed. Also the server's CPU per call to build and send it. One JSON line.

const CALLS = Number(process.argv[2] ?? 20_000);
const PLAIN = `
for i = 1, #ARGV do
  local v = redis.call('HGET', KEYS[1], ARGV[i])
  if v then return 0 end
end
for i = 1, #ARGV do redis.call('HSET', KEYS[1], ARGV[i], 'booked') end
return 1`;

const dir = mkdtempSync(join(tmpdir(), 'bench-script-'));
const server = await startRedisServer({ dir, appendOnly: false });
const redis = new Redis(server.url);
try {
  const scripts = new Scripts(redis);
  const clock = new RedisClock(redis);
  const calls = new AtMostOnceCalls(scripts, redis, clock, { timeoutMs: 10_000, maxOutstanding: 100_000 });
  const index = buildObjectIndex(generatedDrawing({ sections: 10, rowsPerSection: 50, seatsPerRow: 200 }));
  const seats = index.objects.filter((o) => o.objectType === 'seat').map((o) => o.label);
  const event = { _id: 1, tag: '1', usedBuckets: 64, tableBookingConfig: { mode: 'INHERIT' as const } };

  const statsOf = async (command: string) => {
    const line = (await redis.info('commandstats')).split('\n').find((l) => l.startsWith(`cmdstat_${command}:`));
    const [, calls = '0', usec = '0'] = /calls=(\d+),usec=(\d+)/.exec(line ?? '') ?? [];
    return { calls: Number(calls), usec: Number(usec) };
  };

  // The status script: 2 seats per booking, 100 calls in flight at a time, as a server would batch them.
  await redis.config('RESETSTAT');
  const cpuBefore = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: 100 }, async () => {
      for (let i = next++; i < CALLS; i = next++) {
        const objects = [seats[(2 * i) % seats.length]!, seats[(2 * i + 1) % seats.length]!];
        const change = planChange(event, index, 'book', 'booked', objects, { orderId: `o-${i}` });
        await applyStatusChanges(calls, [{ event: { ...event, _id: 1 + Math.floor((2 * i) / seats.length) }, change }], Date.now(), false, { type: 'API_CALL', ip: '127.0.0.1' });
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  const status = await statsOf('fcall');

  // The plain script on the same seats of fresh keys.
  await redis.config('RESETSTAT');
  const sha = (await redis.script('LOAD', PLAIN)) as string;
  next = 0;
  await Promise.all(
    Array.from({ length: 100 }, async () => {
      for (let i = next++; i < CALLS; i = next++) {
        await redis.evalsha(sha, 1, `plain:${Math.floor((2 * i) / seats.length)}`, seats[(2 * i) % seats.length]!, seats[(2 * i + 1) % seats.length]!);
      }
    }),
  );
  const plain = await statsOf('evalsha');
  clock.stop();
  const usPerCall = status.usec / status.calls;
  const plainUsPerCall = plain.usec / plain.calls;
  console.log(
    JSON.stringify({
      calls: status.calls,
      redisUsPerCall: Math.round(usPerCall * 10) / 10,
      plainRedisUsPerCall: Math.round(plainUsPerCall * 10) / 10,
      ratioToPlain: Math.round((usPerCall / plainUsPerCall) * 100) / 100,
      serverCpuUsPerCall: Math.round(((cpu.user + cpu.system) / CALLS) * 10) / 10,
    }),
  );
} finally {
  redis.disconnect();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
