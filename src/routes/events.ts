import Type, { type Static } from 'typebox';
import { replaceChannels } from '../domain/channels.js';
import type { ChartValidator, ValidatorLevel } from '../domain/companySettings.js';
import { badRequest } from '../domain/errors.js';
import { eventUpdate, newEventSettings } from '../domain/eventSettings.js';
import { newForSaleConfig } from '../domain/forSaleConfig.js';
import { newKey } from '../domain/keys.js';
import type { PageLimits } from '../domain/pagination.js';
import type { EventDoc, NewEvent } from '../domain/event.js';
import type { WorkspaceDoc } from '../domain/tenant.js';
import { noContent, ok, workspaceRoute, type RouteDef } from '../http/route.js';
import { createdEventRecord, eventRecords } from './eventRecord.js';
import { EventKey, EventSettingsFields, NewEventFields } from './eventSchemas.js';
import type { EventChart, EventService } from '../services/eventService.js';
import type { SeasonService } from '../services/seasonService.js';
import { PageQuery, pageRequestOf } from './querySchemas.js';

// Events (docs/seatsio-behaviour.md,
// "Events"): create one or several, retrieve, update, list, delete. Channels and the
// for-sale config have their own modules; object statuses are the inventory's.

// Pages may hold up to 1000 (docs/seatsio-behaviour.md, "Pagination"); an event record can carry channels of thousands
// of labels, so a page holds 100 unless the client asks for more.
const PAGE_LIMITS: PageLimits = { defaultLimit: 100, maxLimit: 1000 };
const MAX_EVENTS_PER_REQUEST = 100;

const NewEventSchema = Type.Object(NewEventFields);
export type NewEventInput = Static<typeof NewEventSchema>;
const CreateBody = Type.Object({ chartKey: Type.String({ minLength: 1, maxLength: 200 }), ...NewEventFields });
const CreateMultipleBody = Type.Object({
  chartKey: Type.String({ minLength: 1, maxLength: 200 }),
  events: Type.Array(NewEventSchema, { minItems: 1, maxItems: MAX_EVENTS_PER_REQUEST }),
});
const UpdateBody = Type.Object({
  eventKey: Type.Optional(EventKey),
  chartKey: Type.Optional(Type.String({ maxLength: 200 })),
  ...EventSettingsFields,
  isInThePast: Type.Optional(Type.Boolean()),
  // Top-level seasons only (docs/seasons.md).
  forSalePropagated: Type.Optional(Type.Boolean()),
});

/** Checks one event of a create request and gives the fields to insert (nothing is written). */
export function newEvent(workspace: WorkspaceDoc, at: EventChart, input: NewEventInput, today: Date): NewEvent {
  const settings = newEventSettings(input, at.index, today);
  const forSaleConfig = input.forSaleConfig
    ? newForSaleConfig(input.forSaleConfig.forSale, input.forSaleConfig, at.index)
    : null;
  return {
    workspaceId: workspace._id,
    chartId: at.chart._id,
    chartKey: at.chart.key,
    key: input.eventKey ?? newKey(),
    ...settings,
    channels: replaceChannels([], input.channels ?? [], at.index, newKey),
    forSaleConfig,
    isInThePast: false,
  };
}

export function eventRoutes(events: EventService, seasons: SeasonService): RouteDef[] {
  const records = eventRecords(events, seasons);
  /** 200 with the event's record, on the chart it is on now. */
  const recordAnswer = async (event: EventDoc) => ok(await records.one(event));

  /** Checks every event of the request before inserting any; keys must differ among themselves too. */
  async function createAll(workspace: WorkspaceDoc, chartKey: string, inputs: NewEventInput[], levels: Record<ChartValidator, ValidatorLevel>) {
    const at = await events.chartForNewEvents(workspace, chartKey, levels);
    const today = new Date();
    const fields = inputs.map((input) => newEvent(workspace, at, input, today));
    const keys = new Set<string>();
    for (const { key } of fields) {
      if (keys.has(key)) throw eventKeyTwice(key);
      keys.add(key);
    }
    const created = await events.create(at, fields);
    return created.map((event) => createdEventRecord(event, at.chart, at.index));
  }

  return [
    workspaceRoute({
      method: 'POST',
      path: '/events',
      summary: 'Creates an event on a chart',
      answers: { 200: 'the event' },
      body: CreateBody,
      handler: async (ctx) => {
        const { chartKey, ...input } = ctx.body;
        const [record] = await createAll(ctx.workspace, chartKey, [input], ctx.tenant.company.settings.chartValidation);
        return ok(record);
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/events/actions/create-multiple',
      summary: 'Creates several events on one chart, all or none',
      answers: { 200: '{events}' },
      body: CreateMultipleBody,
      handler: async (ctx) =>
        ok({ events: await createAll(ctx.workspace, ctx.body.chartKey, ctx.body.events, ctx.tenant.company.settings.chartValidation) }),
    }),

    workspaceRoute({
      method: 'GET',
      path: '/events',
      summary: "A page of the workspace's events, newest first",
      answers: { 200: 'a page of events' },
      query: PageQuery,
      handler: async (ctx) => {
        const request = pageRequestOf(ctx.query, PAGE_LIMITS);
        const page = await events.list(ctx.workspace, request);
        return ok({ ...page, items: await records.many(page.items) });
      },
    }),

    workspaceRoute({
      method: 'GET',
      path: '/events/:key',
      summary: 'One event',
      answers: { 200: 'the event' },
      handler: async (ctx) => {
        return recordAnswer(await events.find(ctx.workspace, ctx.params.key!));
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/events/:key',
      summary: 'Changes an event',
      answers: { 200: 'the event as changed' },
      body: UpdateBody,
      handler: async (ctx) => {
        const today = new Date();
        const { forSalePropagated, ...fields } = ctx.body;
        return recordAnswer(
          await seasons.change(ctx.workspace, ctx.params.key!, forSalePropagated, (event, at) => eventUpdate(event, fields, at.index, today)),
        );
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/events/:key/actions/move-to-new-chart-copy',
      summary: "Moves the event to a new copy of its chart's published version",
      answers: { 200: 'the event, on the new chart' },
      handler: async (ctx) => recordAnswer(await events.moveToNewChartCopy(ctx.workspace, ctx.params.key!)),
    }),

    workspaceRoute({
      method: 'DELETE',
      path: '/events/:key',
      summary: 'Deletes an event and its inventory',
      answers: { 204: 'deleted' },
      handler: async (ctx) => {
        await seasons.delete(ctx.workspace, await events.find(ctx.workspace, ctx.params.key!));
        return noContent();
      },
    }),
  ];
}

const eventKeyTwice = (key: string) => badRequest('EVENT_KEY_ALREADY_EXISTS', `eventKey ${key} is given to more than one event`);
