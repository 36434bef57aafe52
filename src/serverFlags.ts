// The V8 flags a server process runs with: package.json's `start` and `dev` scripts, the
// Dockerfile and the bench pass them (test/unit/serverFlags.test.ts keeps all four the same).
//
// --max-semi-space-size=64: V8's young generation may grow to 64 MB per semi-space instead
// of 16, so fewer scavenges copy what in-flight work still holds. A report of a
// 100,000-seat event reads 100,000 strings from Redis that all live until it is done; in
// 16 MB they were copied by two or three scavenges of about 10 ms and promoted. Two full
// bench runs on the 2-core machine, without and with it (bench/baselines,
// 2026-11-23-ioredis5-*): summary of 100,000 seats p50 94 -> 75 ms and server CPU per
// summary 95 -> 74 ms (its p99 stayed at 157 / 166 ms until reports read through
// src/inventory/bulkReader.ts, which allocates a fifth as much); server CPU per request book2
// 89 -> 80 µs, bestAvailable4 208 -> 168 µs. It costs memory: the young generation of a
// busy process grows to 128 MB instead of 32 (twice over while the background jobs had a
// worker thread, until docs/performance.md "Step 5"); the bench's peak server RSS went
// 659 -> 852 MB.
//
// --heap-growing-percent=50: after each full collection V8 lets the old generation grow to
// 1.5 times what survived before the next one, where its own factor (up to 4 on this
// machine) let garbage that reports and chart uploads promote pile up to 300 MB before it
// was collected. Quick bench runs, alternating (docs/performance.md, "Peak memory: the old
// generation's growth and the slow readers' allowance"): peak server RSS 652, 661 -> 432,
// 431 MB, booking CPU within the spread (a full run, with the status stream's smaller
// allowance for slow readers: 826 -> 511 MB); a booking promotes little, so full collections
// stay rare on the priority lane.
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=64', '--heap-growing-percent=50'];
