import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import { loadUws } from '../../src/http/uws.js';
import { BOOK_FUNCTION, LUA, RELEASE_FUNCTION, SEASON_EVENT_BOOK_FUNCTION } from './functions.js';

// The lean reference (docs/performance.md, "The lean reference"): the least a 2-seat booking
// can cost on this stack (uWebSockets.js, ioredis, one Redis function), measured by the bench
// in the same run as the server and driven by the same generator. It keeps what a booking
// needs to be correct: the seats checked and written all or nothing in one function call, one
// history entry, and a request record so a repeated call is applied once. It leaves out
// authentication, the event's rules (channels, for-sale, seasons), hold tokens, the
// used-object count and the answer's objects. No project code beyond the uWS loader. A
// release is the same with the release function: booked seats given back (releaseChurn's floor);
// a booking in an event of a season (`/seasons/:season/events/:key/actions/book`) checks and
// marks the season's hash as well (seasonEventBook's floor).
// Usage: node dist/bench/reference/server.js PORT REDIS_URL

const [port, redisUrl] = [Number(process.argv[2]), process.argv[3]!];
const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
const uws = loadUws();
const idPrefix = randomBytes(6).toString('base64url');
let idCounter = 0;
/** Each event's keys, built once: objects hash, history stream, and its season's hash for an event of a season. */
const keysOf = new Map<string, EventKeys>();
type EventKeys = [objects: string, history: string, season?: string];
const empty = Buffer.alloc(0);

/** An event's keys, tagged by its season where it has one (one slot for the call on a cluster). */
function eventKeys(eventKey: string, season: string | undefined): EventKeys {
  const at = season === undefined ? eventKey : `${season}/${eventKey}`;
  let keys = keysOf.get(at);
  if (!keys) {
    const tag = season === undefined ? `{${eventKey}}` : `{${season}}:${eventKey}`;
    keys = [`ref:${tag}:objects`, `ref:${tag}:history`];
    if (season !== undefined) keys[2] = `ref:{${season}}:season`;
    keysOf.set(at, keys);
  }
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

/**
 * Books (BOOK_FUNCTION, SEASON_EVENT_BOOK_FUNCTION in an event of `season`) or releases
 * (RELEASE_FUNCTION) the body's objects, all or nothing.
 */
function change(fn: string, res: HttpResponse, eventKey: string, season: string | undefined, body: Buffer, aborted: { value: boolean }): void {
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
  const [objects, history, seasonHash] = eventKeys(eventKey, season);
  const record = `ref:{${season ?? eventKey}}:request:${idPrefix}${(++idCounter).toString(36)}`;
  const call = seasonHash
    ? redis.fcall(fn, 4, objects, history, record, seasonHash, Date.now(), 10_000, ...(labels as string[]))
    : redis.fcall(fn, 3, objects, history, record, Date.now(), 10_000, ...(labels as string[]));
  call.then(
    (reply) => {
      if (reply === 1) answer(res, aborted, '204 No Content', empty);
      else answer(res, aborted, '400 Bad Request', JSON.stringify({ messages: [`${(reply as unknown[])[1]} is not ${fn === RELEASE_FUNCTION ? 'booked' : 'free'}`] }));
    },
    () => answer(res, aborted, '503 Service Unavailable', '{"messages":["Redis"]}'),
  );
}

/** A book or release request: its body read whole, then `fn` called on it; `inSeason`: the path names the season first. */
function onChange(fn: string, res: HttpResponse, req: HttpRequest, inSeason = false): void {
  const season = inSeason ? req.getParameter(0)! : undefined;
  const eventKey = req.getParameter(inSeason ? 1 : 0)!;
  const aborted = { value: false };
  res.onAborted(() => (aborted.value = true));
  const chunks: Buffer[] = [];
  res.onData((chunk, isLast) => {
    // uWS reuses the chunk's memory once this callback returns: copied.
    chunks.push(Buffer.from(Buffer.from(chunk)));
    if (isLast) change(fn, res, eventKey, season, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), aborted);
  });
}

// A normal exit on SIGTERM, so `--cpu-prof` (the bench's --profile) writes its profile.
process.on('SIGTERM', () => process.exit(0));
await redis.call('FUNCTION', 'LOAD', 'REPLACE', LUA);
uws
  .App()
  .get('/health', (res) => {
    res.cork(() => res.writeStatus('200 OK').writeHeader('Content-Type', 'application/json').end('{"status":"UP"}'));
  })
  .post('/events/:key/actions/book', (res, req) => onChange(BOOK_FUNCTION, res, req))
  .post('/events/:key/actions/release', (res, req) => onChange(RELEASE_FUNCTION, res, req))
  .post('/seasons/:season/events/:key/actions/book', (res, req) => onChange(SEASON_EVENT_BOOK_FUNCTION, res, req, true))
  .listen('127.0.0.1', port, (socket) => {
    if (!socket) {
      console.error(`reference: cannot listen on ${port}`);
      process.exit(1);
    }
    console.log('reference ready');
  });
