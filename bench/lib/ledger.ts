import type { BenchEvent } from './admin.js';
import type { Inventory } from './inventory.js';

// What the load generator was told: which seats each event's successful requests booked.
// Checked against the final state afterwards: a seat told booked twice is a double booking,
// a seat told booked but not booked in the final state is a lost booking.

export class SeatLedger {
  private readonly told = new Map<string, { event: BenchEvent; seats: Map<string, number> }>();

  /** Records that a request was told (2xx) it booked `labels` in `event`. */
  booked(event: BenchEvent, labels: readonly string[]): void {
    let entry = this.told.get(event.key);
    if (!entry) this.told.set(event.key, (entry = { event, seats: new Map() }));
    for (const label of labels) entry.seats.set(label, (entry.seats.get(label) ?? 0) + 1);
  }

  /** Each event with the labels requests were told they booked in it. */
  *entries(): Iterable<{ event: BenchEvent; labels: string[] }> {
    for (const { event, seats } of this.told.values()) yield { event, labels: [...seats.keys()] };
  }

  get seatsBooked(): number {
    let count = 0;
    for (const { seats } of this.told.values()) count += seats.size;
    return count;
  }

  /**
   * doubleBookings: seats more than one request was told it booked.
   * lostBookings: seats told booked that the final state does not have booked.
   * Seats booked in the final state that nobody was told about are requests still in flight
   * when the load stopped, not errors.
   */
  async check(state: Inventory): Promise<{ doubleBookings: number; lostBookings: number }> {
    let doubleBookings = 0;
    let lostBookings = 0;
    for (const { event, seats } of this.told.values()) {
      const booked = await state.booked(event);
      for (const [label, n] of seats) {
        if (n > 1) doubleBookings += n - 1;
        if (!booked.has(label)) lostBookings++;
      }
    }
    return { doubleBookings, lostBookings };
  }
}
