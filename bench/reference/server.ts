import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { HttpResponse } from 'uWebSockets.js';
import { loadUws } from '../../src/http/uws.js';
import { FUNCTION, LUA } from './bookFunction.js';

// The lean reference (docs/performance.md, "The lean reference"): the least a 2-seat booking
// can cost on this stack (uWebSockets.js, ioredis, one Redis function), measured by the bench
// in the same run as the server and driven by the same generator. It keeps what a booking
// needs to be correct: the seats checked and written all or nothing in one function call, one
// history entry, and a request record so a repeated call is applied once. It leaves out
// authentication, the event's rules (channels, for-sale, seasons), hold tokens, the
// used-object count and the answer's objects. No project code beyond the uWS loader.
// Usage: node dist/bench/reference/server.js PORT REDIS_URL

const [port, redisUrl] = [Number(process.argv[2]), process.argv[3]!];
const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
const uws = loadUws();
const idPrefix = randomBytes(6).toString('base64url');
let idCounter = 0;
/** Each event's keys, built once: objects hash, history stream. */
const keysOf = new Map<string, [string, string]>();
const empty = Buffer.alloc(0);

function eventKeys(eventKey: string): [string, string] {
  let keys = keysOf.get(eventKey);
  if (!keys) keysOf.set(eventKey, (keys = [`ref:{${eventKey}}:objects`, `ref:{${eventKey}}:history`]));
  return keys;
}

function answer(res: HttpResponse, aborted: { value: boolean }, status: string, body: string | Buffer): void {
  if (aborted.value) return;
  res.cork(() => {
    res.writeStatus(status);
    if (body.length > 0) res.writeHeader('Content-Type', 'application/json');
    res.end(body);
  });
}

function book(res: HttpResponse, eventKey: string, body: Buffer, aborted: { value: boolean }): void {
  let labels: unknown;
  try {
    labels = (JSON.parse(body.toString()) as { objects?: unknown }).objects;
  } catch {
    labels = undefined;
  }
  if (!Array.isArray(labels) || labels.length === 0 || !labels.every((l) => typeof l === 'string')) {
    answer(res, aborted, '400 Bad Request', '{"messages":["objects: a non-empty list of labels"]}');
    return;
  }
  const [objects, history] = eventKeys(eventKey);
  const record = `ref:{${eventKey}}:request:${idPrefix}${(++idCounter).toString(36)}`;
  redis.fcall(FUNCTION, 3, objects, history, record, Date.now(), 10_000, ...(labels as string[])).then(
    (reply) => {
      if (reply === 1) answer(res, aborted, '204 No Content', empty);
      else answer(res, aborted, '400 Bad Request', JSON.stringify({ messages: [`${(reply as unknown[])[1]} is not free`] }));
    },
    () => answer(res, aborted, '503 Service Unavailable', '{"messages":["Redis"]}'),
  );
}

// A normal exit on SIGTERM, so `--cpu-prof` (the bench's --profile) writes its profile.
process.on('SIGTERM', () => process.exit(0));
await redis.call('FUNCTION', 'LOAD', 'REPLACE', LUA);
uws
  .App()
  .get('/health', (res) => {
    res.cork(() => res.writeStatus('200 OK').writeHeader('Content-Type', 'application/json').end('{"status":"UP"}'));
  })
  .post('/events/:key/actions/book', (res, req) => {
    const eventKey = req.getParameter(0)!;
    const aborted = { value: false };
    res.onAborted(() => (aborted.value = true));
    const chunks: Buffer[] = [];
    res.onData((chunk, isLast) => {
      // uWS reuses the chunk's memory once this callback returns: copied.
      chunks.push(Buffer.from(Buffer.from(chunk)));
      if (isLast) book(res, eventKey, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), aborted);
    });
  })
  .listen('127.0.0.1', port, (socket) => {
    if (!socket) {
      console.error(`reference: cannot listen on ${port}`);
      process.exit(1);
    }
    console.log('reference ready');
  });
