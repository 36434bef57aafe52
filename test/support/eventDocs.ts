import type { EventDoc, NewEvent } from '../../src/domain/event.js';

// An event document as MongoDB stores it, with the defaults POST /events gives, for tests
// that build documents without the API (unit tests of the domain, white-box setups).

export function eventDoc(fields: Partial<EventDoc> = {}): EventDoc {
  return {
    _id: 1,
    workspaceId: 1,
    chartId: 1,
    chartKey: 'chart',
    key: 'event',
    name: null,
    date: null,
    tableBookingConfig: { mode: 'INHERIT' },
    objectCategories: {},
    categories: [],
    channels: [],
    forSaleConfig: null,
    isInThePast: false,
    tag: '1',
    createdOn: new Date(0),
    updatedOn: null,
    version: 1,
    ...fields,
  };
}

/** The fields of a new event (what Events.create takes). */
export function newEventFields(fields: Partial<NewEvent> = {}): NewEvent {
  const { _id, tag, createdOn, updatedOn, version, ...rest } = eventDoc();
  return { ...rest, ...fields };
}
