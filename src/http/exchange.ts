import type { HttpResponse } from 'uWebSockets.js';
import type { ReceivedHeaders } from './requestHeaders.js';
import type { RequestIds } from './requestIds.js';
import { noContent, type DirectAnswer, type Lane, type Reply } from './route.js';

// One HTTP request and its answer as the server tracks them (src/http/server.ts).

/** Exchange.slotCompany of a request that holds no place in a concurrency limit. */
export const NO_SLOT = -1;

/** The address of a request that ended before it was asked for. */
const NO_ADDRESS = new ArrayBuffer(0);

/** What answers an exchange: the server that received it. */
export interface ExchangeAnswerer {
  /** Where the ids of requests that brought none come from. */
  readonly requestIds: RequestIds;
  /** The request's answer, the reply or the error; nothing works on it after. */
  conclude(ex: Exchange, error: unknown, reply: Reply | undefined): void;
}

/**
 * One request/response pair and what we know about its state. It is also where the direct way
 * answers (route.ts, DirectAnswer): its methods are shared, so answering takes no closure per
 * request.
 */
export class Exchange implements DirectAnswer {
  route = 'unmatched';
  aborted = false;
  finished = false;
  /** The handler (or the error it ended in) has been answered: its work is over, though the write may still be compressing. */
  handled = false;
  /** The company whose concurrency limit this request holds a place of (NO_SLOT: none), in the route's lane. */
  slotCompany = NO_SLOT;
  lane: Lane = 'regular';
  /** The request's id as text, once read (or as the client gave it). */
  private id: string | undefined;
  /** The peer's address, once read (remoteAddress). */
  private address: ArrayBuffer | undefined;

  constructor(
    private readonly answerer: ExchangeAnswerer,
    readonly res: HttpResponse,
    readonly method: string,
    readonly path: string,
    readonly rawQuery: string,
    readonly headers: ReceivedHeaders,
    /** The id the client gave (X-Request-Id), if it is one we take. */
    givenId: string | undefined,
    /** The number of the id the server gives it otherwise (RequestIds). */
    private readonly idNumber: number,
    readonly started: number,
    /** The route answers gzip whatever the client accepts (RouteDef.alwaysGzip). */
    readonly alwaysGzip: boolean,
  ) {
    this.id = givenId;
  }

  /** The request's id (X-Request-Id), as the client gave it or as the server made it. */
  get requestId(): string {
    return (this.id ??= this.answerer.requestIds.text(this.idNumber));
  }

  /** The request's id as the answer's header takes it: bytes, unless it was made as text already. */
  get requestIdHeader(): string | Uint8Array {
    return this.id ?? this.answerer.requestIds.bytesOf(this.idNumber);
  }

  /**
   * The peer's address as uWS gives it (binary, src/http/clientIp.ts). Read from uWS when
   * first asked for while uWS has the request, and kept (keep) before the request waits for
   * anything: a request answered at once, and never asked, costs no read.
   */
  get remoteAddress(): ArrayBuffer {
    return (this.address ??= this.finished || this.aborted ? NO_ADDRESS : this.res.getRemoteAddress());
  }

  /** Reads the headers and the peer's address now: the request is about to wait, and its handler may ask after uWS let it go. */
  keep(): void {
    this.headers.keep();
    void this.remoteAddress;
  }

  answer(error: unknown, reply?: Reply): void {
    this.answerer.conclude(this, error, reply);
  }

  settled(error?: unknown): void {
    this.answerer.conclude(this, error, error === undefined ? noContent() : undefined);
  }
}
