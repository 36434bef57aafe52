import { planChange } from '../src/domain/statusChangeRequest.js';
import { AtMostOnceCalls } from '../src/inventory/atMostOnce.js';
import { RedisClock } from '../src/inventory/redisClock.js';
import { Scripts } from '../src/inventory/scripts.js';
import { applyPlainChange } from '../src/inventory/statusChanges.js';
import { commandStats } from './lib/commandStats.js';
import { median } from './lib/median.js';
import { withStatusFunctionBench } from './lib/statusFunctionBench.js';

// `npm run bench:batch -- [calls] [rounds] [inFlight]`: Redis's time per request of a
// plain 2-seat booking (book2's call) when the calls of a turn go alone and when they go as
// batches of one event (src/inventory/atMostOnce.ts, Batches), `inFlight` requests in flight
// (100 unless given), alternating rounds; INFO commandstats's FCALL time over the requests.
// One JSON line: µs per request each way, their ratio, and requests per call when batched.

const CALLS = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 4);
const IN_FLIGHT = Number(process.argv[4] ?? 100);

await withStatusFunctionBench('batch', async ({ redis, index, seats, event, owner }) => {
  const clock = new RedisClock(redis);
  const scripts = new Scripts(redis);
  const ways = {
    alone: new AtMostOnceCalls(scripts, redis, clock, { timeoutMs: 10_000, maxOutstanding: 100_000, batchAtMost: 1 }),
    batched: new AtMostOnceCalls(scripts, redis, clock, { timeoutMs: 10_000, maxOutstanding: 100_000 }),
  };
  const results: Record<string, number[]> = { alone: [], batched: [], perCall: [] };
  let eventId = 1;
  for (let round = 0; round < ROUNDS; round++) {
    for (const way of (round % 2 === 0 ? ['alone', 'batched'] : ['batched', 'alone']) as (keyof typeof ways)[]) {
      const calls = ways[way];
      const target = { ...event, _id: ++eventId, tag: String(eventId) };
      await redis.config('RESETSTAT');
      const ids = Array.from({ length: CALLS }, (_, i) => [seats[(2 * i) % seats.length]!, seats[(2 * i + 1) % seats.length]!]);
      let sent = 0;
      // A reply starts the connection's next request, as a client waiting for its answer does.
      await new Promise<void>((resolve, reject) => {
        let done = 0;
        const one = (i: number) => {
          const change = planChange(target, index, 'book', 'booked', ids[i]!, {});
          applyPlainChange(calls, { event: target, change }, Date.now(), '192.0.2.1', owner, {
            resolve: () => {
              done++;
              if (sent < CALLS) one(sent++);
              else if (done === CALLS) resolve();
            },
            reject,
          });
        };
        for (; sent < Math.min(IN_FLIGHT, CALLS); ) one(sent++);
      });
      const stats = (await commandStats(redis)).get('fcall')!;
      results[way]!.push(stats.usec / CALLS);
      if (way === 'batched') results.perCall!.push(CALLS / stats.calls);
    }
  }
  clock.stop();
  const alone = median(results.alone!);
  const batched = median(results.batched!);
  console.log(JSON.stringify({ calls: CALLS, rounds: ROUNDS, inFlight: IN_FLIGHT, aloneUsPerRequest: Math.round(alone * 100) / 100, batchedUsPerRequest: Math.round(batched * 100) / 100, ratio: Math.round((batched / alone) * 100) / 100, requestsPerCall: Math.round(median(results.perCall!) * 10) / 10 }));
});
