import type { Admin, BenchEvent, BenchSeason } from './admin.js';
import type { Inventory } from './inventory.js';
import type { SeatLedger } from './ledger.js';

// The final state read through the server's API, for a server the bench did not start
// (`--target`, docs/benchmarks.md, "Against your own deployment"): the by-status report of an
// event lists its booked objects, object info a GA area's booked places. The API shows an
// event of a season what its season took, so a seat booked on the season and in the event
// cannot be told apart from one booked on the season only; a seat an event's request was told
// it booked that its season has booked is counted instead (the two sales the rule forbids).

export class ApiState implements Inventory {
  constructor(private readonly admin: Admin) {}

  async booked(event: BenchEvent): Promise<Set<string>> {
    const report = await this.admin.call<{ booked?: { label: string }[] }>('GET', `/reports/events/${encodeURIComponent(event.key)}/byStatus/booked`);
    return new Set((report.booked ?? []).map((object) => object.label));
  }

  async area(event: BenchEvent, label: string): Promise<{ nonFree: number }> {
    const info = await this.admin.call<{ numBooked: number }>('GET', `/events/${encodeURIComponent(event.key)}/objects/${encodeURIComponent(label)}`);
    return { nonFree: info.numBooked };
  }

  /** A season's by-status report shows its own bookings (a seat taken in an event reads free there, unavailable). */
  async seasonAndEventBookings(seasons: BenchSeason[], told: SeatLedger): Promise<number> {
    const seasonOf = new Map(seasons.flatMap(({ season, events }) => events.map((event) => [event.key, season] as const)));
    const onSeason = new Map<string, Set<string>>();
    let both = 0;
    for (const { event, labels } of told.entries()) {
      const season = seasonOf.get(event.key);
      if (!season) continue;
      if (!onSeason.has(season.key)) onSeason.set(season.key, await this.booked(season));
      const booked = onSeason.get(season.key)!;
      both += labels.filter((label) => booked.has(label)).length;
    }
    return both;
  }
}
