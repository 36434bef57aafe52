import { planChange } from '../src/domain/statusChangeRequest.js';
import { statusLibrary } from '../src/inventory/scripts.js';
import { applyPlainChange } from '../src/inventory/statusChanges.js';
import { BOOK_FUNCTION as REFERENCE_FUNCTION, LUA as REFERENCE_LUA } from './reference/functions.js';
import { commandStats } from './lib/commandStats.js';
import { median } from './lib/median.js';
import { eventRecords, inFlight, withStatusFunctionBench } from './lib/statusFunctionBench.js';

// `npm run bench:phases`: where Redis's time goes in the status function's call for a plain
// 2-seat booking (book2's call, src/inventory/plainRequest.ts). The function's library is
// loaded again with `do return 1 end` put in after one phase of the call (PHASES: a line of
// the assembled source, lua/), so each figure is what the call costs up to that point (FCALL's
// µs per call, INFO commandstats), and `inner` the part of it spent in the commands the
// function called (what commandstats counts for each of them). What is neither is Lua and the
// cost of each redis.call() itself. An empty function with as many arguments is the floor, and
// the lean reference's function (bench/reference/functions.ts) booking the same seats the yardstick.
// Rounds alternate the phases, as the machine's speed moves between minutes
// (docs/performance.md, "Where a booking's CPU goes"). One JSON line.

const CALLS = Number(process.argv[2] ?? 10_000);
const ROUNDS = Number(process.argv[3] ?? 3);

/** A phase: its name, and the line of the source after which the call returns (none: the whole call). */
const PHASES: [string, string | undefined][] = [
  ['arguments', '  KEYS, ARGV, now, nowText, request = keys, args, tonumber(args[ARG_NOW]), args[ARG_NOW], nil\n'],
  ['deadline', '  if pastDeadline() then return { -1 } end\n'],
  ['saleConfig', '    hasExtraData = true\n  end\n'],
  ['records', "  local stored = redis.call('HMGET', objectsKey, unpack(labels, first, last))\n"],
  ['checks', '    values[i] = value\n  end\n'],
  ['writes', "  if hasExtraData then callChunked('HDEL', extraDataKey, { unpack(labels, first, last) }) end\n"],
  ['history', "    noteEntry(stream, labels[i], statuses[i], 1, orderId, token, API_CALL, ip, '', usage)\n  end\n  writeHistory()\n"],
  ['whole call', undefined],
];

/** FCALL's µs per call, and of that the part inside the commands it called. */
interface CallTimes {
  usPerCall: number;
  innerUsPerCall: number;
}

await withStatusFunctionBench('phases', async ({ redis, calls, index, seats, event, owner }) => {
  const library = statusLibrary();
  const sources = PHASES.map(([name, line]) => {
    if (line === undefined) return library.source;
    if (!library.source.includes(line)) throw new Error(`bench:phases: the phase "${name}" names a line the status function no longer has; update PHASES`);
    return library.source.replace(line, `${line}  do return 1 end\n`);
  });

  /** FCALL's times since the stats were reset. */
  const fcallTimes = async (): Promise<CallTimes> => {
    let fcall = { calls: 1, usec: 0 };
    let inner = 0;
    for (const [name, stats] of await commandStats(redis)) {
      if (name === 'fcall') fcall = stats;
      else if (name !== 'config' && name !== 'function') inner += stats.usec;
    }
    return { usPerCall: fcall.usec / fcall.calls, innerUsPerCall: inner / fcall.calls };
  };

  let events = 0;
  /** CALLS calls of `call`, given the call's number and the first event of the round (each round books on fresh events); their FCALL times. */
  const round = async (call: (i: number, firstEvent: number) => Promise<unknown>): Promise<CallTimes> => {
    await redis.config('RESETSTAT');
    const firstEvent = (events += 100);
    await inFlight(CALLS, (i) => call(i, firstEvent));
    return fcallTimes();
  };
  const twoSeats = (i: number): [string, string] => [seats[(2 * i) % seats.length]!, seats[(2 * i + 1) % seats.length]!];
  const eventOf = (i: number, firstEvent: number) => firstEvent + Math.floor((2 * i) / seats.length);
  const recordOf = eventRecords<typeof event>();
  /** A plain 2-seat booking (the direct way's call), each on free seats. */
  const booking = (i: number, firstEvent: number) => {
    const _id = eventOf(i, firstEvent);
    const change = planChange(event, index, 'book', 'booked', twoSeats(i), {});
    return new Promise((resolve, reject) => applyPlainChange(calls, { event: recordOf(_id, () => ({ ...event, _id, tag: String(_id) })), change }, Date.now(), '127.0.0.1', owner, { resolve, reject }));
  };

  await round(booking); // loads the function and warms both sides
  const measured = PHASES.map(() => [] as CallTimes[]);
  for (let r = 0; r < ROUNDS; r++) {
    for (let p = 0; p < PHASES.length; p++) {
      await redis.call('FUNCTION', 'LOAD', 'REPLACE', sources[p]!);
      measured[p]!.push(await round(booking));
    }
  }
  // The floor: an empty function given as many keys and arguments.
  const keysAndArguments = [...Array.from({ length: 8 }, (_, j) => `inv:{1}:key-${j}`), ...Array.from({ length: 16 }, (_, j) => `argument-${j}`)];
  await redis.call('FUNCTION', 'LOAD', 'REPLACE', `#!lua name=bench_empty\nredis.register_function('bench_empty', function() return 1 end)\n`);
  const floor: CallTimes[] = [];
  for (let r = 0; r < ROUNDS; r++) floor.push(await round(() => redis.fcall('bench_empty', 8, ...keysAndArguments)));
  // The lean reference's function (bench/reference/functions.ts), booking the same seats.
  await redis.call('FUNCTION', 'LOAD', 'REPLACE', REFERENCE_LUA);
  const reference: CallTimes[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    reference.push(
      await round((i, firstEvent) => {
        const at = eventOf(i, firstEvent);
        return redis.fcall(REFERENCE_FUNCTION, 3, `ref:{${at}}:objects`, `ref:{${at}}:history`, `ref:{${at}}:request:${i}`, Date.now(), 10_000, ...twoSeats(i));
      }),
    );
  }
  const medians = (times: CallTimes[]): CallTimes => ({
    usPerCall: Math.round(median(times.map((t) => t.usPerCall)) * 10) / 10,
    innerUsPerCall: Math.round(median(times.map((t) => t.innerUsPerCall)) * 10) / 10,
  });
  console.log(
    JSON.stringify({
      calls: CALLS,
      rounds: ROUNDS,
      emptyFunctionUsPerCall: medians(floor).usPerCall,
      referenceFunction: medians(reference),
      phases: Object.fromEntries(PHASES.map(([name], p) => [name, medians(measured[p]!)])),
    }),
  );
});
