// The V8 flags a server process runs with: package.json's `start` and `dev` scripts, the
// Dockerfile and the bench pass them (test/unit/serverFlags.test.ts keeps all four the same).
//
// --max-semi-space-size=64: V8's young generation may grow to 64 MB per semi-space instead
// of 16. A report of a 100,000-seat event reads 100,000 strings from Redis that all live
// until it is done; in 16 MB they were copied by two or three scavenges of about 10 ms and
// promoted, and every tenth report paid for a mark-compact of what they left. With 64 MB
// they mostly die young. Full bench runs of reportSummary100k on the 2-core machine:
// summaries p50 94-97 ms and p99 148-172 ms before, p50 78 ms and p99 126 ms after, server
// CPU per summary 94-102 ms -> 83 ms (README, "Benchmarks"). It costs memory: the young
// generation of a busy process (and of its background jobs' thread) grows to 128 MB
// instead of 32.
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=64'];
