import { describe, expect, it } from 'vitest';
import { ReportLane } from '../../src/services/reportLane.js';
import { ON_THIS_THREAD } from '../../src/util/gzipStream.js';

// The report lane (docs/reports.md, "The report thread"): one report at a time; a waiting
// report shares the work of an identical one still waiting, never of one already running;
// slices rest while other requests are in flight.

const later = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe('report lane', () => {
  it('runs one job at a time, in arrival order; waiting identical jobs share one run', async () => {
    const lane = new ReportLane(ON_THIS_THREAD, () => 0);
    const log: string[] = [];
    const first = later();
    const job = (name: string, gate?: Promise<void>) => async () => {
      log.push(`start ${name}`);
      await gate;
      log.push(`end ${name}`);
      return name;
    };
    const a = lane.run('a', job('a1', first.promise));
    // 'a' is running: another 'a' must not share it (it may miss changes made since it began).
    const a2 = lane.run('a', job('a2'));
    const b = lane.run('b', job('b'));
    const a3 = lane.run('a', job('a3'));
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['start a1']);
    first.resolve();
    expect(await Promise.all([a, a2, b, a3])).toEqual(['a1', 'a2', 'b', 'a2']);
    expect(log).toEqual(['start a1', 'end a1', 'start a2', 'end a2', 'start b', 'end b']);
  });

  it('a failed job fails its callers and the lane goes on', async () => {
    const lane = new ReportLane(ON_THIS_THREAD, () => 0);
    await expect(lane.run('x', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await lane.run('y', async () => 'y')).toBe('y');
  });

  it('pauses rest while other requests are in flight, and only yield otherwise', async () => {
    let inFlight = 0;
    const lane = new ReportLane(ON_THIS_THREAD, () => inFlight);
    const time = async () => {
      const began = performance.now();
      await lane.pause(10);
      return performance.now() - began;
    };
    expect(await time()).toBeLessThan(10);
    inFlight = 1;
    expect(await time()).toBeGreaterThanOrEqual(75);
    // The report's own request is in the lane: alone, it is not "another request".
    expect(await lane.run('r', time)).toBeLessThan(10);
  });
});
