import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import uWS from 'uWebSockets.js';
import { clientIp } from '../src/http/clientIp.js';
import { freePort } from '../src/embedded/freePort.js';

// `npm run bench:address`: what reading the caller's address costs a uWS server per request,
// the way src/http/clientIp.ts reads it (uWS's binary address) against uWS's text address
// decoded (docs/performance.md, "The direct path"). A
// bare uWS server in a child process reads it READS times per request, to lift the cost
// above the spread, or not at all; the child's CPU per request is compared in alternating
// rounds. One JSON object on stdout.

const READS = 10;
const REQUESTS = 200_000;
const ROUNDS = 3;
type Way = 'none' | 'text' | 'binary';

/** The text way as it was: uWS's text, decoded, then a known IPv4-mapped address written dotted. */
const textKnown = new Map<string, string>();
function textIp(text: ArrayBuffer): string {
  const address = Buffer.from(text).toString('latin1');
  let ip = textKnown.get(address);
  if (ip === undefined) {
    const mapped = /^(?:(?:0{1,4}:){5}|::)ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
    const high = mapped ? parseInt(mapped[1]!, 16) : 0;
    const low = mapped ? parseInt(mapped[2]!, 16) : 0;
    textKnown.set(address, (ip = mapped ? `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}` : address));
  }
  return ip;
}

function serve(way: Way, port: number): void {
  let sink = 0;
  uWS
    .App()
    .get('/*', (res) => {
      for (let i = 0; i < READS; i++) {
        if (way === 'text') sink += textIp(res.getRemoteAddressAsText()).length;
        else if (way === 'binary') sink += clientIp(res.getRemoteAddress()).length;
      }
      res.end('ok');
    })
    .listen('127.0.0.1', port, () => {
      process.send!('ready');
    });
  process.on('message', () => {
    const { user, system } = process.cpuUsage();
    process.send!({ cpuUs: user + system, sink });
  });
}

async function measure(way: Way): Promise<number> {
  const port = await freePort();
  const child = fork(fileURLToPath(import.meta.url), ['--serve', way, String(port)]);
  await once(child, 'message');
  const cpu = async () => {
    child.send('cpu');
    const [reply] = (await once(child, 'message')) as [{ cpuUs: number }];
    return reply.cpuUs;
  };
  const before = await cpu();
  await autocannon({ url: `http://127.0.0.1:${port}/`, connections: 50, amount: REQUESTS });
  const used = (await cpu()) - before;
  child.kill();
  return used / REQUESTS;
}

if (process.argv[2] === '--serve') {
  serve(process.argv[3] as Way, Number(process.argv[4]));
} else {
  const rounds: Record<Way, number[]> = { none: [], text: [], binary: [] };
  for (let round = 0; round < ROUNDS; round++) for (const way of ['none', 'text', 'binary'] as const) rounds[way].push(Math.round((await measure(way)) * 100) / 100);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const perRead = (way: Way) => Math.round(((median(rounds[way]) - median(rounds.none)) / READS) * 100) / 100;
  console.log(JSON.stringify({ readsPerRequest: READS, serverUsPerRequest: rounds, usPerRead: { text: perRead('text'), binary: perRead('binary') } }, null, 2));
}
