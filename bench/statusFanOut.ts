import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { freePort } from '../src/embedded/freePort.js';
import { loadUws } from '../src/http/uws.js';
import { roundOrder } from './lib/alternating.js';
import { median } from './lib/median.js';

// `npm run bench:fanout`: what handing a status stream frame to each subscriber (src/services/streamSockets.ts)
// costs per subscriber and frame, a frame sent as its JavaScript text
// (uWS makes a UTF-8 copy of it for every socket) against the same message encoded once and
// sent as bytes. One uWS server with SUBSCRIBERS WebSockets from a child process that reads
// as fast as it can; each message goes to every socket, and the next waits until the child
// has read the last, so no socket holds anything unsent and only the sends are timed. The
// server's CPU (user and system) per send, median of ROUNDS rounds of each way, alternating;
// one JSON line. The on-sale bench's statusStream cannot show this: its subscribers fall
// behind on a 2-core machine, and how long they last decides its figures.

if (process.argv[2] === '--clients') {
  // The child: opens the sockets, and tells the parent each time every one has read a message.
  const [count, port] = [Number(process.argv[3]), Number(process.argv[4])];
  let open = 0;
  let read = 0;
  for (let i = 0; i < count; i++) {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/fanout`);
    socket.on('open', () => ++open === count && process.send!('open'));
    socket.on('message', () => {
      if (++read === count) {
        read = 0;
        process.send!('read');
      }
    });
  }
} else {
  const SUBSCRIBERS = Number(process.argv[2] ?? 2_000);
  const MESSAGES = Number(process.argv[3] ?? 200);
  const ROUNDS = Number(process.argv[4] ?? 5);
  const uws = loadUws();
  const sockets: import('uWebSockets.js').WebSocket<unknown>[] = [];
  const app = uws.App().ws('/fanout', { open: (ws) => void sockets.push(ws), maxBackpressure: 64 * 1024 * 1024 });
  const port = await freePort();
  const listening = await new Promise<import('uWebSockets.js').us_listen_socket>((resolve, reject) =>
    app.listen('127.0.0.1', port, (token) => (token ? resolve(token) : reject(new Error('listen failed')))),
  );
  const child = fork(fileURLToPath(import.meta.url), ['--clients', String(SUBSCRIBERS), String(port)]);
  // The child says 'open' once, then 'read' once per message.
  const next = (what: string) => new Promise<void>((resolve) => child.once('message', (message) => message === what && resolve()));
  await next('open');

  // A changes message of a few seats, as the hub sends one (docs/status-stream.md).
  const messageOf = (n: number) =>
    JSON.stringify({ type: 'changes', seq: n, changes: [1, 2].map((seat) => ({ objectLabel: `A-${n}-${seat}`, status: 'booked', orderId: `order-${n}`, ticketType: null })) });
  const ways = {
    text: (n: number) => {
      const text = messageOf(n);
      for (const ws of sockets) ws.send(text, false);
    },
    bytes: (n: number) => {
      const bytes = Buffer.from(messageOf(n));
      for (const ws of sockets) ws.send(bytes, false);
    },
  };
  const usPerSend: Record<keyof typeof ways, number[]> = { text: [], bytes: [] };
  let n = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const way of roundOrder(['text', 'bytes'] as const, round)) {
      let cpu = 0;
      for (let m = 0; m < MESSAGES; m++) {
        const read = next('read');
        const before = process.cpuUsage();
        ways[way](n++);
        const spent = process.cpuUsage(before);
        cpu += spent.user + spent.system;
        await read;
      }
      usPerSend[way].push(cpu / (MESSAGES * sockets.length));
    }
  }
  child.kill();
  uws.us_listen_socket_close(listening);
  for (const ws of sockets) ws.close();
  const round2 = (x: number) => Math.round(x * 100) / 100;
  const text = median(usPerSend.text);
  const bytes = median(usPerSend.bytes);
  console.log(JSON.stringify({ subscribers: sockets.length, messages: MESSAGES, rounds: ROUNDS, textUsPerSend: round2(text), bytesUsPerSend: round2(bytes), bytesToText: round2(bytes / text) }));
}
