import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors.js';
import { MAX_TICKET_BUYER_ID_LENGTH, requestedTicketBuyerIds } from '../../src/domain/ticketBuyers.js';

// What an add or remove call of ticket buyer ids asks for (docs/seatsio-behaviour.md, "Ticket buyers").

describe('requestedTicketBuyerIds', () => {
  it('keeps the order given, drops nulls, and counts an id named twice once', () => {
    expect(requestedTicketBuyerIds(['b', null, 'a', 'b', null, 'c', 'a'])).toEqual(['b', 'a', 'c']);
    expect(requestedTicketBuyerIds([null])).toEqual([]);
  });

  it('refuses an empty id and one past the length limit, naming its place in the list', () => {
    const refusal = (ids: (string | null)[]) => {
      try {
        requestedTicketBuyerIds(ids);
      } catch (error) {
        expect(error).toBeInstanceOf(ApiError);
        return [(error as ApiError).status, (error as ApiError).errors[0]!.message];
      }
      return undefined;
    };
    expect(refusal(['a', null, ''])).toEqual([400, '#/ids/2: expected minLength: 1, actual: 0']);
    const long = 'x'.repeat(MAX_TICKET_BUYER_ID_LENGTH + 1);
    expect(refusal([long])).toEqual([400, `#/ids/0: expected maxLength: ${MAX_TICKET_BUYER_ID_LENGTH}, actual: ${MAX_TICKET_BUYER_ID_LENGTH + 1}`]);
    expect(refusal(['x'.repeat(MAX_TICKET_BUYER_ID_LENGTH)])).toBeUndefined();
  });
});
