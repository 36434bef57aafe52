import type { Admin, BenchEvent } from '../lib/admin.js';
import type { Inventory } from '../lib/inventory.js';
import type { LoadSettings } from '../lib/measure.js';

// What every scenario is given: the running server, its seeded charts, the load settings
// and a reader of the final state (the server's Redis, or its API with `--target`).

export interface SeededChart {
  key: string;
  /** Every seat's label, in chart order (section by section, row by row). */
  labels: string[];
}

/** How much each scenario does: `full`, `quick` (about a minute) or `smoke` (the test suite's run). */
export interface Scale {
  mode: 'full' | 'quick' | 'smoke';
  /** Events book-2 walks through: enough that it never comes back to a seat. */
  bookEvents: number;
  /** Events hold-then-book walks through. */
  checkoutEvents: number;
  /** Events created one after the other on the 100,000-seat chart. */
  eventsCreated: number;
  hotSeatConnections: number;
  hotSeatRequests: number;
  /** WebSocket subscribers of the statusStream scenario. */
  streamSubscribers: number;
  /** Whether to index the 100,000-seat chart in a process of its own (charts figures). */
  indexInOwnProcess: boolean;
}

export interface BenchContext {
  scale: Scale;
  settings: LoadSettings;
  /**
   * Seconds each scenario judged against book2 runs in all: its warm-up, its timed run and its
   * runs in the alternating rounds (a scenario that books fresh seats on seats made once per
   * run sizes them by it).
   */
  secondsPerScenario: number;
  /** The server under test (base URL) and the no-op ceiling server (none with `--target`). */
  serverUrl: string;
  ceilingUrl: string;
  /** The lean reference (bench/reference/server.ts), on the same Redis; none on a cluster run. */
  referenceUrl?: string;
  admin: Admin;
  /** Priority-lane calls use a workspace secret key, as ticketing platforms do. */
  workspaceHeaders: Record<string, string>;
  state: Inventory;
  charts: { seats10k: SeededChart; seats10kWithGa: SeededChart; seats100k: SeededChart };
  /** The server process's resident memory now and at its peak (throws with `--target`: the process is elsewhere). */
  serverMemory(): { rssBytes: number; peakRssBytes: number };
  /** CPU seconds the server process used so far (its cost per request, whatever else the machine runs); none with `--target`. */
  serverCpuSeconds?(): number;
  /** Events made for one scenario on a chart (event creation writes nothing to Redis). */
  newEvents(chart: SeededChart, count: number): Promise<BenchEvent[]>;
}
