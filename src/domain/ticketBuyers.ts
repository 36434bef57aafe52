import { badRequest } from './errors.js';

// Ticket buyer ids (docs/seatsio-behaviour.md, "Ticket buyers"): the ids a workspace
// registers for its buyers. What a call asks for, checked before any I/O.

/** Ids one add or remove call may name (nulls and repeats count). */
export const MAX_TICKET_BUYER_IDS_PER_CALL = 1_000;
/** Characters of one id: a UUID has 36; room for other ids of a caller's own. */
export const MAX_TICKET_BUYER_ID_LENGTH = 100;

/**
 * The ids a call names, in the order given: nulls ignored (the SDKs drop them, a caller
 * that does not is not refused for it), and an id named twice counted once. An empty id or
 * one longer than MAX_TICKET_BUYER_ID_LENGTH is a 400 worded like the schema checks.
 */
export function requestedTicketBuyerIds(ids: readonly (string | null)[]): string[] {
  ids.forEach((id, i) => {
    if (id === null) return;
    if (id.length === 0) throw badRequest('GENERAL_ERROR', `#/ids/${i}: expected minLength: 1, actual: 0`);
    if (id.length > MAX_TICKET_BUYER_ID_LENGTH) throw badRequest('GENERAL_ERROR', `#/ids/${i}: expected maxLength: ${MAX_TICKET_BUYER_ID_LENGTH}, actual: ${id.length}`);
  });
  return [...new Set(ids.filter((id): id is string => id !== null))];
}
