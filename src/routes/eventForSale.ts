import Type from 'typebox';
import { rateLimitExceeded } from '../domain/errors.js';
import { takesOffSale, editForSaleConfig, newForSaleConfig, type ForSaleEdits, type ForSaleInput } from '../domain/forSaleConfig.js';
import type { RateLimitInfo } from '../domain/forSaleLimit.js';
import { checkMarkForSale } from '../domain/season.js';
import type { EventChange, EventDoc } from '../domain/event.js';
import type { WorkspaceDoc } from '../domain/tenant.js';
import { noContent, ok, workspaceRoute, type RouteDef } from '../http/route.js';
import { ForSaleFields, Label } from './eventSchemas.js';
import type { EventChart, EventService } from '../services/eventService.js';

// The for-sale config of an event (docs/seatsio-behaviour.md,
// "For-sale config"). Every mark and edit counts against 10 calls per event per UTC day; a
// call is counted only after its input was found valid, so a 400 costs nothing. Over the
// limit, a call that takes objects off sale changes nothing (429 with Retry-After); an
// edit that only opens objects up still goes through.

const MAX_EDITS = 10_000;
const MAX_EVENTS_PER_EDIT = 100;

const Edit = Type.Object({ object: Label, quantity: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])) });
const Edits = Type.Union([Type.Array(Edit, { maxItems: MAX_EDITS }), Type.Null()]);
const EditsFields = { forSale: Type.Optional(Edits), notForSale: Type.Optional(Edits) };
const MarkBody = Type.Object(ForSaleFields);
const EditBody = Type.Object(EditsFields);
const EditManyBody = Type.Object({
  events: Type.Record(Type.String(), Type.Object(EditsFields), { minProperties: 1, maxProperties: MAX_EVENTS_PER_EDIT }),
});

type Decide = (event: EventDoc, at: EventChart) => EventChange;

/** The wire form of the limit (docs/seatsio-behaviour.md, "For-sale config"). */
const rateLimitInfo = (info: RateLimitInfo) => ({
  rateLimitRemainingCalls: info.rateLimitRemainingCalls,
  rateLimitResetDate: info.rateLimitResetDate.toISOString(),
});

/** Over the day's calls: retry at the next UTC midnight. */
const dayLimitExceeded = (info: RateLimitInfo, now: number) => rateLimitExceeded((info.rateLimitResetDate.getTime() - now) / 1000);

const edited =
  (edits: ForSaleEdits): Decide =>
  (event, at) => ({ forSaleConfig: editForSaleConfig(event.forSaleConfig, edits, at.index) });

const replaced =
  (forSale: boolean, body: ForSaleInput): Decide =>
  (event, at) => {
    if (forSale) checkMarkForSale(event);
    return { forSaleConfig: newForSaleConfig(forSale, body, at.index) };
  };

export function eventForSaleRoutes(events: EventService): RouteDef[] {
  /**
   * Validates, then counts the call, then changes; past the limit a `limited` call is
   * refused and changes nothing.
   */
  async function limitedChange(workspace: WorkspaceDoc, key: string, limited: boolean, decide: Decide) {
    const event = await events.preview(workspace, key, decide);
    const now = Date.now();
    const info = await events.countForSaleEdit(event, now, limited);
    if (limited && !info.allowed) throw dayLimitExceeded(info, now);
    const changed = await events.change(workspace, key, decide);
    return { forSaleConfig: changed.forSaleConfig, rateLimitInfo: rateLimitInfo(info) };
  }

  const mark = (forSale: boolean) =>
    workspaceRoute({
      method: 'POST',
      path: `/events/:key/actions/${forSale ? 'mark-as-for-sale' : 'mark-as-not-for-sale'}`,
      summary: forSale ? 'Makes the objects given the only ones for sale (limited per day)' : 'Takes the objects given off sale (limited per day)',
      answers: { 200: 'the rate limit info' },
      body: MarkBody,
      handler: async (ctx) => {
        const result = await limitedChange(ctx.workspace, ctx.params.key!, true, replaced(forSale, ctx.body));
        return ok(result.rateLimitInfo);
      },
    });

  return [
    mark(true),
    mark(false),

    // Only opens up: free, and answers without a body like the SDKs expect.
    workspaceRoute({
      method: 'POST',
      path: '/events/:key/actions/mark-everything-as-for-sale',
      summary: 'Puts every object of the event up for sale',
      answers: { 204: 'done' },
      handler: async (ctx) => {
        await events.change(ctx.workspace, ctx.params.key!, () => ({ forSaleConfig: null }));
        return noContent();
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/events/:key/actions/edit-for-sale-config',
      summary: 'Opens up and closes objects of the event for sale (limited per day)',
      answers: { 200: '{forSaleConfig, rateLimitInfo}' },
      body: EditBody,
      handler: async (ctx) => ok(await limitedChange(ctx.workspace, ctx.params.key!, takesOffSale(ctx.body), edited(ctx.body))),
    }),

    workspaceRoute({
      method: 'POST',
      path: '/events/actions/edit-for-sale-config',
      summary: 'Edits the for-sale config of several events, all checked first',
      answers: { 200: 'per event: {forSaleConfig, rateLimitInfo}' },
      body: EditManyBody,
      handler: async (ctx) => {
        const entries = Object.entries(ctx.body.events);
        // Every event's input is checked, and every event whose edit takes objects off sale
        // must have a call left, before any call is counted or any config changed.
        const now = Date.now();
        for (const [key, edits] of entries) {
          const event = await events.preview(ctx.workspace, key, edited(edits));
          if (!takesOffSale(edits)) continue;
          const left = await events.forSaleEditsLeft(event, now);
          if (!left.allowed) throw dayLimitExceeded(left, now);
        }
        const results: Record<string, unknown> = {};
        for (const [key, edits] of entries) {
          results[key] = await limitedChange(ctx.workspace, key, takesOffSale(edits), edited(edits));
        }
        return ok(results);
      },
    }),
  ];
}
