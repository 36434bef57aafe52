import type { Admin, BenchEvent } from '../lib/admin.js';
import type { FinalState } from '../lib/finalState.js';
import type { LoadSettings } from '../lib/measure.js';

// What every scenario is given: the running server, its seeded charts, the load settings
// and a reader of the final state.

export interface SeededChart {
  key: string;
  /** Every seat's label, in chart order (section by section, row by row). */
  labels: string[];
}

export interface BenchContext {
  quick: boolean;
  settings: LoadSettings;
  /** The server under test (base URL) and the no-op ceiling server. */
  serverUrl: string;
  ceilingUrl: string;
  admin: Admin;
  /** Priority-lane calls use a workspace secret key, as ticketing platforms do. */
  workspaceHeaders: Record<string, string>;
  state: FinalState;
  charts: { seats10k: SeededChart; seats10kWithGa: SeededChart; seats100k: SeededChart };
  /** Events made for one scenario on a chart (event creation writes nothing to Redis). */
  newEvents(chart: SeededChart, count: number): Promise<BenchEvent[]>;
}
