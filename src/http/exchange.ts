import type { HttpResponse } from 'uWebSockets.js';
import type { Lane, RequestHeaders } from './route.js';

// One HTTP request and its answer as the server tracks them (src/http/server.ts).

/** Exchange.slotCompany of a request that holds no place in a concurrency limit. */
export const NO_SLOT = -1;

/** One request/response pair and what we know about its state. */
export interface Exchange {
  res: HttpResponse;
  method: string;
  path: string;
  rawQuery: string;
  headers: RequestHeaders;
  /** The peer's address as uWS gives it (text), read before the first await. */
  remoteAddress: ArrayBuffer;
  requestId: string;
  started: number;
  route: string;
  /** The route answers gzip whatever the client accepts (RouteDef.alwaysGzip). */
  alwaysGzip: boolean;
  aborted: boolean;
  finished: boolean;
  /** The handler (or the error it ended in) has been answered: its work is over, though the write may still be compressing. */
  handled: boolean;
  /** The company whose concurrency limit this request holds a place of (NO_SLOT: none), in the route's lane. */
  slotCompany: number;
  lane: Lane;
}
