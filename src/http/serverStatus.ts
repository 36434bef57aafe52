// What the HTTP server says about itself while it runs: how many requests are in flight
// and whether a shutdown began. The server keeps it; readiness and metrics read it.

export class ServerStatus {
  inFlight = 0;
  /** True once a shutdown began: /ready answers 503 so load balancers stop sending. */
  draining = false;
}
