// The V8 flags a server process runs with: package.json's `start` and `dev` scripts, the
// Dockerfile and the bench pass them (test/unit/serverFlags.test.ts keeps all four the same).
//
// --max-semi-space-size=16: V8's young generation is capped at two semi-spaces of 16 MB, the
// size V8 itself picks on a 64-bit machine with enough memory, written here so it does not
// change with the machine. It was 64 while a booking allocated about 30 KB and a
// 100,000-seat report read 100,000 strings in one piece: fewer scavenges then saved
// CPU (book2 89 -> 80 µs, a summary 95 -> 74 ms) for up to 130 MB of young generation
// that a busy process kept committed. A booking now allocates under 6 KB and reports read
// through src/inventory/bulkReader.ts, so the bigger young generation bought nothing the
// spread shows and cost the peak: alternating bench runs of 16 against 64
// (docs/performance.md, "Peak memory"), full runs of the same hour
// peak RSS 368 against 511 MB, booking CPU against the reference the same within the spread.
//
// --heap-growing-percent=50: after each full collection V8 lets the old generation grow to
// 1.5 times what survived before the next one, where its own factor (up to 4 on this
// machine) let garbage that reports and chart uploads promote pile up to 300 MB before it
// was collected. Quick bench runs, alternating (docs/performance.md, "Peak memory"): peak
// server RSS 652, 661 -> 432, 431 MB, booking CPU within the spread (a full run, with the
// status stream's smaller allowance for slow readers: 826 -> 511 MB); a booking promotes
// little, so full collections stay rare on the priority lane.
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=16', '--heap-growing-percent=50'];
