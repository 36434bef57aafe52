import type { BenchEvent, BenchSeason } from './admin.js';
import type { SeatLedger } from './ledger.js';

// What the scenarios' correctness checks read of the final state, from wherever the bench
// can read it: the server's Redis when the bench started the server (bench/lib/finalState.ts),
// the API otherwise (bench/lib/apiState.ts, `--target`).

export interface Inventory {
  /** The labels of seats, tables and booths booked in the event (expired holds read as free). */
  booked(event: BenchEvent): Promise<Set<string>>;
  /** A GA area's places booked (or in another status than free and held). */
  area(event: BenchEvent, label: string): Promise<{ nonFree: number }>;
  /**
   * Seats booked both on a season and in one of its events (must be 0). `told` is what the
   * events' requests were told they booked, for a reader that cannot tell an event's own
   * bookings from its season's.
   */
  seasonAndEventBookings(seasons: BenchSeason[], told: SeatLedger): Promise<number>;
}
