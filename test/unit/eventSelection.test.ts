import { describe, expect, it } from 'vitest';
import { straightRow } from '../../bench/drawings.js';
import { seatingLayout } from '../../src/domain/bestAvailable.js';
import { eventSelection } from '../../src/domain/bestAvailableRequest.js';
import type { Drawing } from '../../src/domain/drawing.js';
import type { EventDoc } from '../../src/domain/event.js';
import { buildObjectIndex } from '../../src/domain/objectIndex.js';
import { eventDoc } from '../support/eventDocs.js';

// What an event makes of its chart for best available (src/domain/bestAvailableRequest.ts,
// docs/best-available.md): events without rules of their own share one selection per chart,
// built once; an event with rules gets its own, and never changes the shared one.

const drawing: Drawing = {
  name: 'Selection test',
  categories: { list: [{ key: 1, label: 'Regular', color: '#111111' }] },
  subChart: {
    rows: [straightRow('A', 4, { x: 0, y: 0 }, 1, 20, {}), straightRow('B', 3, { x: 0, y: 20 }, 1, 20, {})],
    tables: [{ label: 'T1', center: { x: 200, y: 0 }, bookAsAWhole: true, categoryKey: 1, seats: [{ label: '1', x: 195, y: 5 }] }],
    generalAdmissionAreas: [{ label: 'GA', capacity: 10, center: { x: 300, y: 0 }, categoryKey: 1 }],
  },
  focalPoint: { x: 30, y: -100 },
};

let nextId = 1;
/** A new event document each time (selections are kept per document). */
function event(overrides: Partial<EventDoc> = {}): EventDoc {
  const id = nextId++;
  return eventDoc({ _id: id, key: `event${id}`, tag: String(id), ...overrides });
}

describe('eventSelection', () => {
  const index = buildObjectIndex(drawing);
  const layout = seatingLayout(index);
  const at = (label: string) => index.byLabel.get(label)!.position;

  it('is shared by the events of a chart without rules of their own', () => {
    const first = eventSelection(event(), layout);
    expect(eventSelection(event(), layout)).toBe(first);
    // Seats in rows and the table open; the table's seat, a part of a table booked whole, is not a seat in a row.
    expect(Array.from(first.openInRowWhenFree)).toEqual([4, 3]);
    expect(first.openWhenFree[at('A-1')]).toBe(1);
    expect(first.openWhenFree[at('T1')]).toBe(1);
    expect(first.openWhenFree[at('GA')], 'a GA area is opened by its free places, read per view').toBe(0);
    expect(first.areas).toEqual([at('GA')]);
    expect(first.choosable[at('T1-1')]).toBe(0);
  });

  it('is the event\'s own when it has a for-sale config, channels, its own categories or table booking', () => {
    const shared = eventSelection(event(), layout);
    const notForSale = eventSelection(event({ forSaleConfig: { forSale: false, objects: ['A-2'], areaPlaces: { GA: 4 }, categories: [] } }), layout);
    expect(notForSale).not.toBe(shared);
    expect(notForSale.openWhenFree[at('A-2')]).toBe(0);
    expect(notForSale.notForSale[at('GA')]).toBe(4);
    expect(Array.from(notForSale.openInRowWhenFree)).toEqual([3, 3]);
    const channel = (key: string, objects: string[]) => ({ id: key, key, name: key, color: '#000000', index: 1, objects, areaPlaces: {} });
    const channelled = eventSelection(event({ channels: [channel('c1', ['B-1', 'GA', 'NO-SUCH-SEAT']), channel('c2', ['A-3'])] }), layout);
    expect(channelled).not.toBe(shared);
    expect(channelled.channels).toEqual(['c1', 'c2']);
    expect([at('B-1'), at('GA'), at('A-3'), at('A-1')].map((p) => channelled.channel[p])).toEqual([0, 0, 1, -1]);
    // Channels are its only rule: the rest is the chart's, shared.
    expect(channelled.choosable).toBe(shared.choosable);
    expect(channelled.openWhenFree).toBe(shared.openWhenFree);
    // With another rule beside them, the channels are the same in a selection of its own.
    const both = eventSelection(event({ channels: [channel('c1', ['B-1'])], forSaleConfig: { forSale: false, objects: ['B-1'], areaPlaces: {}, categories: [] } }), layout);
    expect(both.choosable).not.toBe(shared.choosable);
    expect([both.channel[at('B-1')], both.channel[at('A-1')], both.openWhenFree[at('B-1')]]).toEqual([0, -1, 0]);
    const bySeat = eventSelection(event({ tableBookingConfig: { mode: 'ALL_BY_SEAT' } }), layout);
    expect(bySeat).not.toBe(shared);
    expect(bySeat.choosable[at('T1')]).toBe(0);
    // The shared selection is as it was.
    expect(eventSelection(event(), layout)).toBe(shared);
    expect(shared.openWhenFree[at('A-2')]).toBe(1);
    expect(shared.channel[at('B-1')]).toBe(-1);
    expect(shared.choosable[at('T1')]).toBe(1);
    expect(Array.from(shared.openInRowWhenFree)).toEqual([4, 3]);
  });
});
