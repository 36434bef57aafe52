import { planChange } from '../src/domain/statusChangeRequest.js';
import type { StatusReply } from '../src/inventory/scripts.js';
import type { EventRef } from '../src/inventory/eventKeys.js';
import { applyPlainChange, applyStatusChanges, plainOutcome } from '../src/inventory/statusChanges.js';
import { commandStats } from './lib/commandStats.js';
import { median } from './lib/median.js';
import { eventRecords, inFlight, withStatusFunctionBench } from './lib/statusFunctionBench.js';

// `npm run bench:script`: what Redis spends per call of the status script (a Redis function,
// FCALL) for a 2-seat booking (or `seats` per booking, the third argument; INFO commandstats), with nothing else on that Redis, beside a plain script that
// only reads and writes the two seats' records (HGET, HSET) in the same run: the ratio of
// the two says how much the rules, the history and the bookkeeping add, whatever the
// machine's speed. Also the server's CPU per call to build and send it. Both for the general
// way's call (a JSON request, with an order id) and the direct way's (`direct*`: a plain
// call's positional arguments, src/inventory/plainRequest.ts), which book2 makes, and for a
// checkout's two direct calls (`hold*`: the seats held with a hold token; `bookHeld*`: booked
// with it), which holdThenBook makes, and the release of the direct way's seats (`release*`),
// which releaseChurn makes half of its calls of, and a booking in events of a season
// (`seasonEvent*`), which seasonEventBook makes. Each figure is the
// median of ROUNDS rounds (each on fresh events), as the machine's noise moves single
// rounds by 10 % or more. One JSON line.

const CALLS = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 5);
/** Seats per booking (2 unless given). */
const SEATS = Number(process.argv[4] ?? 2);
const seatsOf = (all: string[], i: number) => Array.from({ length: SEATS }, (_, j) => all[(SEATS * i + j) % all.length]!);
const PLAIN = `
for i = 1, #ARGV do
  local v = redis.call('HGET', KEYS[1], ARGV[i])
  if v then return 0 end
end
for i = 1, #ARGV do redis.call('HSET', KEYS[1], ARGV[i], 'booked') end
return 1`;

await withStatusFunctionBench('script', async ({ redis, calls, index, seats, event, owner }) => {
  const statsOf = async (command: string) => (await commandStats(redis)).get(command) ?? { calls: 0, usec: 0 };

  // The status script: 2 seats per booking, 100 calls in flight at a time, as a server
  // would batch them; each round books seats of events of its own.
  // A checkout's two calls on the direct way (`hold`): the seats held with a token of their
  // own, then booked with it, each call measured apart.
  // `seasonEvent`: the direct way's booking in events of a season (seasonEventBook's call), one
  // season a round, its events named as the others' (the season has no records of its own).
  type Kind = 'general' | 'direct' | 'hold' | 'bookHeld' | 'release' | 'seasonEvent';
  const EVENT_OFFSET: Record<Kind, number> = { general: 0, direct: 250, hold: 500, bookHeld: 500, release: 250, seasonEvent: 750 };
  const recordOf = eventRecords<EventRef>();
  const statusRound = async (round: number, kind: Kind) => {
    await redis.config('RESETSTAT');
    const cpuBefore = process.cpuUsage();
    const tokenExpiry = Date.now() + 15 * 60_000;
    // The round's season (seasonEvent only), its events numbered after it.
    const topId = 1 + round * 1000 + EVENT_OFFSET.seasonEvent;
    const top = { ...event, _id: topId, tag: String(topId), season: { role: 'top' as const, forSalePropagated: true } };
    const season = kind === 'seasonEvent' ? { role: 'event' as const, top, sum: [top], groups: [], propagated: true, version: '0' } : undefined;
    await inFlight(CALLS, async (i) => {
      const objects = seatsOf(seats, i);
      const _id = 1 + round * 1000 + EVENT_OFFSET[kind] + Math.floor((SEATS * i) / seats.length);
      const target = recordOf(season ? _id + 1 : _id, () => (season ? { ...event, _id: _id + 1, tag: top.tag, season: { role: 'event' as const, topId } } : { ...event, _id, tag: String(_id) }));
      if (kind === 'general') {
        const change = planChange(event, index, 'book', 'booked', objects, { orderId: `o-${i}` });
        return applyStatusChanges(calls, [{ event: target, change }], Date.now(), false, { type: 'API_CALL', ip: '127.0.0.1' }, owner);
      }
      // The direct way's change names no order id (src/services/statusChangeService.ts, applyPlain).
      const holdToken = kind === 'direct' || kind === 'release' || kind === 'seasonEvent' ? undefined : `token-${round}-${i}`;
      const [op, status] = kind === 'hold' ? (['hold', 'reservedByToken'] as const) : kind === 'release' ? (['release', 'free'] as const) : (['book', 'booked'] as const);
      const change = planChange(event, index, op, status, objects, holdToken ? { holdToken } : {});
      const planned = { event: target, change, season, tokenExpiry: kind === 'hold' ? tokenExpiry : undefined };
      // Every call must apply (plainOutcome throws a refusal): a refused call costs something else.
      return new Promise((resolve, reject) => applyPlainChange(calls, planned, Date.now(), '127.0.0.1', owner, { resolve, reject })).then((reply) =>
        plainOutcome(reply as StatusReply, planned),
      );
    });
    const cpu = process.cpuUsage(cpuBefore);
    const stats = await statsOf('fcall');
    return { usPerCall: stats.usec / stats.calls, calls: stats.calls, serverUsPerCall: (cpu.user + cpu.system) / CALLS };
  };

  // The plain script on the same seats of fresh keys.
  const sha = (await redis.script('LOAD', PLAIN)) as string;
  const plainRound = async (round: number) => {
    await redis.config('RESETSTAT');
    await inFlight(CALLS, (i) => redis.evalsha(sha, 1, `plain:${round}:${Math.floor((SEATS * i) / seats.length)}`, ...seatsOf(seats, i)));
    const stats = await statsOf('evalsha');
    return stats.usec / stats.calls;
  };

  const status: Awaited<ReturnType<typeof statusRound>>[] = [];
  const direct: Awaited<ReturnType<typeof statusRound>>[] = [];
  const holds: Awaited<ReturnType<typeof statusRound>>[] = [];
  const heldBooked: Awaited<ReturnType<typeof statusRound>>[] = [];
  const released: Awaited<ReturnType<typeof statusRound>>[] = [];
  const inSeason: Awaited<ReturnType<typeof statusRound>>[] = [];
  const plain: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    status.push(await statusRound(round, 'general'));
    direct.push(await statusRound(round, 'direct'));
    holds.push(await statusRound(round, 'hold'));
    heldBooked.push(await statusRound(round, 'bookHeld'));
    // The seats the direct round booked, released.
    released.push(await statusRound(round, 'release'));
    inSeason.push(await statusRound(round, 'seasonEvent'));
    plain.push(await plainRound(round));
  }
  const usPerCall = median(status.map((r) => r.usPerCall));
  const plainUsPerCall = median(plain);
  console.log(
    JSON.stringify({
      calls: status[0]!.calls,
      rounds: ROUNDS,
      redisUsPerCall: Math.round(usPerCall * 10) / 10,
      plainRedisUsPerCall: Math.round(plainUsPerCall * 10) / 10,
      ratioToPlain: Math.round((usPerCall / plainUsPerCall) * 100) / 100,
      serverCpuUsPerCall: Math.round(median(status.map((r) => r.serverUsPerCall)) * 10) / 10,
      directRedisUsPerCall: Math.round(median(direct.map((r) => r.usPerCall)) * 10) / 10,
      directServerCpuUsPerCall: Math.round(median(direct.map((r) => r.serverUsPerCall)) * 10) / 10,
      holdRedisUsPerCall: Math.round(median(holds.map((r) => r.usPerCall)) * 10) / 10,
      bookHeldRedisUsPerCall: Math.round(median(heldBooked.map((r) => r.usPerCall)) * 10) / 10,
      releaseRedisUsPerCall: Math.round(median(released.map((r) => r.usPerCall)) * 10) / 10,
      releaseToDirect: Math.round(median(released.map((r, i) => r.usPerCall / direct[i]!.usPerCall)) * 100) / 100,
      seasonEventRedisUsPerCall: Math.round(median(inSeason.map((r) => r.usPerCall)) * 10) / 10,
      seasonEventToDirect: Math.round(median(inSeason.map((r, i) => r.usPerCall / direct[i]!.usPerCall)) * 100) / 100,
    }),
  );
});
