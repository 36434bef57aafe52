// What the HTTP server says about itself while it runs: how many requests are in flight
// and whether a shutdown began. The server keeps it; readiness and metrics read it, and the
// report thread reads the count in flight from shared memory (its reports rest while the
// server answers others: src/services/reportLane.ts).

export class ServerStatus {
  /** The count of requests in flight, in memory other threads can read. */
  readonly inFlightShared = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));

  get inFlight(): number {
    return this.inFlightShared[0]!;
  }

  set inFlight(count: number) {
    this.inFlightShared[0] = count;
  }

  /** True once a shutdown began: /ready answers 503 so load balancers stop sending. */
  draining = false;
}
