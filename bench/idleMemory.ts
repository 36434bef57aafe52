import { setTimeout as sleep } from 'node:timers/promises';
import { cpuSecondsOf, processMemory } from './lib/processes.js';
import { startDevServer } from './lib/devServer.js';

// `npm run bench:idle`: the memory of a server that has started and waits for requests
// (docs/benchmarks.md, "Benches of one part"): the server on its embedded defaults, as `npm run dev`
// starts it with the V8 flags of `npm start` (its redis-server and MongoDB wire server are
// processes of their own, not counted), its RSS 5 and 15 s after it is ready, with its
// background jobs running, and the CPU it used in between: what the background jobs cost
// while nothing is asked (the drain's and the hold expiry's turns). One JSON object on stdout.

const server = await startDevServer('idle');
try {
  await sleep(5_000);
  const after5s = processMemory(server.pid);
  const cpuAt5s = cpuSecondsOf(server.pid);
  await sleep(10_000);
  const after15s = processMemory(server.pid);
  // CPU seconds over the 10 s, as ms per second with one decimal.
  const idleCpuMsPerSecond = Math.round((cpuSecondsOf(server.pid) - cpuAt5s) * 1000) / 10;
  const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;
  console.log(JSON.stringify({ rssMbAfter5s: mb(after5s.rssBytes), rssMbAfter15s: mb(after15s.rssBytes), peakRssMb: mb(after15s.peakRssBytes), idleCpuMsPerSecond }, null, 2));
} finally {
  await server.stop();
}
