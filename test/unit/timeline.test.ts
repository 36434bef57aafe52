import { describe, expect, it } from 'vitest';
import { bucketOf, TimelineRecording, upperBoundMs } from '../../bench/lib/timeline.js';

// A scenario's answers second by second (bench/lib/timeline.ts), from answers at known times.

describe('timeline of a run', () => {
  it('counts answers per second from the first load, with each second p50 and p99 of its 2xx times', () => {
    const recording = new TimelineRecording();
    recording.loadStarted(1000);
    // Second 0: 100 answers of 1..100 ms; second 1: 50 answers of 2 ms and 10 refusals.
    for (let i = 1; i <= 100; i++) recording.answer(1000 + i * 9, 200, i);
    for (let i = 0; i < 50; i++) recording.answer(2000 + i * 10, 204, 2);
    for (let i = 0; i < 10; i++) recording.answer(2990 + i, 400, 1);
    const timeline = recording.stop()!;
    expect(timeline.rps).toEqual([100, 60]);
    expect(timeline.non2xx).toEqual([0, 10]);
    expect(timeline.p50Ms).toEqual([51, 2]);
    expect(timeline.p99Ms).toEqual([100, 2]);
    // Every 2xx answer is in the histogram, each in the bucket of its time.
    expect(timeline.latencyHistogram.reduce((n, [, count]) => n + count, 0)).toBe(150);
    expect(timeline.latencyHistogram.find(([ms]) => ms === upperBoundMs(bucketOf(2)))![1]).toBe(50 + 1);
  });

  it('scales a last partial second (up to the last answer) to a rate, drops one too short to say much, and marks a second without 2xx answers null', () => {
    const partial = new TimelineRecording();
    partial.loadStarted(0);
    for (let i = 0; i < 100; i++) partial.answer(i * 10, 200, 1);
    for (let i = 0; i < 50; i++) partial.answer(1000 + i * 10, 200, 1);
    // 50 answers in the 0.49 s up to the last one.
    expect(partial.stop()!.rps).toEqual([100, 102]);
    const short = new TimelineRecording();
    short.loadStarted(0);
    for (let i = 0; i < 100; i++) short.answer(i * 10, 200, 1);
    // One answer still in flight when the load stopped, 50 ms into the next second.
    short.answer(1050, 200, 1);
    expect(short.stop()!.rps).toEqual([100]);
    const refused = new TimelineRecording();
    refused.loadStarted(0);
    refused.answer(100, 200, 3);
    refused.answer(1900, 503, 3);
    expect(refused.stop()!.p99Ms).toEqual([3, null]);
    expect(new TimelineRecording().stop()).toBeUndefined();
  });

  it('puts a time in the tenth of a decade that holds it', () => {
    for (const ms of [0.05, 0.3, 1, 1.2, 7.5, 120, 4000]) {
      const bucket = bucketOf(ms);
      expect(upperBoundMs(bucket), String(ms)).toBeGreaterThanOrEqual(Number(ms.toPrecision(3)));
      expect(upperBoundMs(bucket - 1), String(ms)).toBeLessThan(ms);
    }
  });
});
