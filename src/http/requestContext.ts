import type { Logger } from 'pino';
import type { Caller } from './auth.js';
import { clientIp } from './clientIp.js';
import type { Exchange } from './exchange.js';
import type { Query } from './query.js';
import type { RequestHeaders } from './route.js';

/** What a context asks of the server for its request. */
export interface ExchangeOwner {
  countAgainst(ex: Exchange, companyId: number): void;
  loggerFor(ex: Exchange): Logger;
}

/**
 * What a handler sees of its request (route.ts, WorkspaceContext). One object of one shape
 * per request: the logger and the caller's address are made only when a handler asks.
 */
export class RequestContext {
  readonly headers: RequestHeaders;
  readonly tenant: Caller['tenant'];
  readonly principal: Caller['principal'];
  readonly workspace: Caller['workspace'];

  constructor(
    private readonly server: ExchangeOwner,
    private readonly ex: Exchange,
    readonly params: Record<string, string>,
    readonly query: Query,
    readonly body: unknown,
    readonly bodyText: string,
    caller: Caller,
  ) {
    this.headers = ex.headers;
    this.tenant = caller.tenant;
    this.principal = caller.principal;
    this.workspace = caller.workspace;
  }

  /** Made as text only when a handler asks (src/http/requestIds.ts). */
  get requestId(): string {
    return this.ex.requestId;
  }

  get log(): Logger {
    return this.server.loggerFor(this.ex);
  }

  /** Decoded only for the routes that record it (status changes). */
  get ip(): string {
    return clientIp(this.ex.remoteAddress);
  }

  /** For the routes that authenticate themselves (the legacy calls). */
  countAgainst(companyId: number): void {
    this.server.countAgainst(this.ex, companyId);
  }
}
