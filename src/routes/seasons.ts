import Type from 'typebox';
import { badRequest } from '../domain/errors.js';
import { newKey } from '../domain/keys.js';
import type { EventDoc } from '../domain/event.js';
import { ok, workspaceRoute, type RouteDef } from '../http/route.js';
import type { EventService } from '../services/eventService.js';
import { MAX_EVENTS_PER_SEASON_REQUEST, type SeasonService } from '../services/seasonService.js';
import { eventRecords } from './eventRecord.js';
import { EventKey, NewEventFields } from './eventSchemas.js';
import { newEvent } from './events.js';

// Seasons (docs/seasons.md): create a season with its events, add events, and group events
// into partial seasons. Retrieving, updating and deleting a season go through the event
// routes, as does every status change: a season key is an event key.

const { eventKey: _eventKey, ...SeasonSettingsFields } = NewEventFields;
const EventKeys = Type.Array(EventKey, { maxItems: MAX_EVENTS_PER_SEASON_REQUEST });
const NumberOfEvents = Type.Integer({ minimum: 1, maximum: MAX_EVENTS_PER_SEASON_REQUEST });
const NewEventsFields = { eventKeys: Type.Optional(EventKeys), numberOfEvents: Type.Optional(NumberOfEvents) };

const CreateBody = Type.Object({
  chartKey: Type.String({ minLength: 1, maxLength: 200 }),
  key: Type.Optional(EventKey),
  ...SeasonSettingsFields,
  ...NewEventsFields,
  forSalePropagated: Type.Optional(Type.Boolean()),
});
const CreateEventsBody = Type.Object(NewEventsFields);
const PartialBody = Type.Object({
  key: Type.Optional(EventKey),
  name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
  eventKeys: Type.Optional(EventKeys),
});
const AddEventsBody = Type.Object({ eventKeys: Type.Array(EventKey, { minItems: 1, maxItems: MAX_EVENTS_PER_SEASON_REQUEST }) });

/** The keys of the events to create: given, or that many new ones; never both, distinct. */
function newEventKeys(input: { eventKeys?: string[]; numberOfEvents?: number }): string[] {
  if (input.eventKeys !== undefined && input.numberOfEvents !== undefined) {
    throw badRequest('GENERAL_ERROR', 'give eventKeys or numberOfEvents, not both');
  }
  const keys = input.eventKeys ?? Array.from({ length: input.numberOfEvents ?? 0 }, () => newKey());
  const seen = new Set<string>();
  for (const key of keys) {
    if (seen.has(key)) throw badRequest('EVENT_KEY_ALREADY_EXISTS', `eventKey ${key} is given more than once`);
    seen.add(key);
  }
  return keys;
}

export function seasonRoutes(events: EventService, seasons: SeasonService): RouteDef[] {
  const records = eventRecords(events, seasons);
  const recordAnswer = async (doc: EventDoc) => ok(await records.one(doc));

  return [
    workspaceRoute({
      method: 'POST',
      path: '/seasons',
      summary: 'Creates a season on a chart, with its events',
      answers: { 200: 'the season, with its events' },
      body: CreateBody,
      handler: async (ctx) => {
        const { chartKey, key, eventKeys, numberOfEvents, forSalePropagated, ...settings } = ctx.body;
        const keys = newEventKeys({ eventKeys, numberOfEvents });
        const at = await events.chartForNewEvents(ctx.workspace, chartKey, ctx.tenant.company.settings.chartValidation);
        const fields = newEvent(ctx.workspace, at, { ...settings, eventKey: key }, new Date());
        return recordAnswer(await seasons.create(at, fields, forSalePropagated ?? true, keys));
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/seasons/:key/actions/create-events',
      summary: 'Creates events in a season',
      answers: { 200: '{events}, newest first' },
      body: CreateEventsBody,
      handler: async (ctx) => {
        const keys = newEventKeys(ctx.body);
        if (keys.length === 0) throw badRequest('GENERAL_ERROR', 'give eventKeys or numberOfEvents');
        const created = await seasons.createEvents(ctx.workspace, ctx.params.key!, keys);
        return ok({ events: (await records.many(created)).reverse() });
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/seasons/:key/partial-seasons',
      summary: 'Creates a partial season from events of the season',
      answers: { 200: 'the partial season' },
      body: PartialBody,
      handler: async (ctx) =>
        recordAnswer(await seasons.createPartial(ctx.workspace, ctx.params.key!, ctx.body.key, ctx.body.name ?? null, ctx.body.eventKeys ?? [])),
    }),

    workspaceRoute({
      method: 'POST',
      path: '/seasons/:key/partial-seasons/:partial/actions/add-events',
      summary: 'Adds events of the season to a partial season',
      answers: { 200: 'the partial season' },
      body: AddEventsBody,
      handler: async (ctx) => recordAnswer(await seasons.addToPartial(ctx.workspace, ctx.params.key!, ctx.params.partial!, ctx.body.eventKeys)),
    }),

    workspaceRoute({
      method: 'DELETE',
      path: '/seasons/:key/partial-seasons/:partial/events/:eventKey',
      summary: 'Takes an event out of a partial season',
      answers: { 200: 'the partial season' },
      handler: async (ctx) =>
        recordAnswer(await seasons.removeFromPartial(ctx.workspace, ctx.params.key!, ctx.params.partial!, ctx.params.eventKey!)),
    }),
  ];
}
