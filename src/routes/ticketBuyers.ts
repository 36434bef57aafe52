import Type from 'typebox';
import type { PageLimits } from '../domain/pagination.js';
import { MAX_TICKET_BUYER_ID_LENGTH, MAX_TICKET_BUYER_IDS_PER_CALL, requestedTicketBuyerIds } from '../domain/ticketBuyers.js';
import { ok, workspaceRoute, type RouteDef } from '../http/route.js';
import type { TicketBuyers } from '../metadata/ticketBuyers.js';
import { PageQuery, pageRequestOf } from './querySchemas.js';

// Ticket buyer ids of the workspace (docs/seatsio-behaviour.md, "Ticket buyers"): added,
// removed and listed. Not priority lane.

// Default and maximum page size 1000 (docs/seatsio-behaviour.md, "Pagination").
const PAGE_LIMITS: PageLimits = { defaultLimit: 1000, maxLimit: 1000 };

const IdsBody = Type.Object(
  {
    // The ids' lengths are checked by requestedTicketBuyerIds: inside a union with null, the
    // schema's own message would not say which limit an id broke.
    ids: Type.Array(Type.Union([Type.String(), Type.Null()]), {
      maxItems: MAX_TICKET_BUYER_IDS_PER_CALL,
      description: `ticket buyer ids (nulls are ignored, repeats count once); at most ${MAX_TICKET_BUYER_IDS_PER_CALL}, each 1 to ${MAX_TICKET_BUYER_ID_LENGTH} characters`,
    }),
  },
  { additionalProperties: false },
);

export function ticketBuyerRoutes(buyers: TicketBuyers): RouteDef[] {
  return [
    workspaceRoute({
      method: 'POST',
      path: '/ticket-buyers',
      summary: 'Adds ticket buyer ids to the workspace',
      answers: { 200: '{added, alreadyPresent}: the ids named, by whether this call added them' },
      body: IdsBody,
      handler: async (ctx) => ok(await buyers.add(ctx.workspace._id, requestedTicketBuyerIds(ctx.body.ids))),
    }),
    workspaceRoute({
      method: 'DELETE',
      path: '/ticket-buyers',
      summary: 'Removes ticket buyer ids from the workspace',
      answers: { 200: '{removed, notPresent}: the ids named, by whether this call removed them' },
      body: IdsBody,
      handler: async (ctx) => ok(await buyers.remove(ctx.workspace._id, requestedTicketBuyerIds(ctx.body.ids))),
    }),
    workspaceRoute({
      method: 'GET',
      path: '/ticket-buyers',
      summary: "A page of the workspace's ticket buyer ids, newest first",
      answers: { 200: 'a page of ticket buyer ids (strings)' },
      query: PageQuery,
      handler: async (ctx) => ok(await buyers.page(ctx.workspace._id, pageRequestOf(ctx.query, PAGE_LIMITS))),
    }),
  ];
}
