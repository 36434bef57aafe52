import Type, { type Static } from 'typebox';
import { noContent, ok, workspaceRoute, type DirectHandler, type Lane, type RouteDef, type WorkspaceContext } from '../http/route.js';
import { clientIp } from '../http/clientIp.js';
import type { StatusParameters } from '../domain/statusChangeRequest.js';
import { badRequest } from '../domain/errors.js';
import { MAX_BEST_AVAILABLE } from '../domain/bestAvailableRequest.js';
import { bestAvailableJson, type BestAvailableService } from '../services/bestAvailableService.js';
import type { StatusChangeInput, StatusChangeService } from '../services/statusChangeService.js';
import { ExpandQuery } from './querySchemas.js';
import type { ChangeOrigin } from '../inventory/statusChanges.js';

/** A change made through these routes (and the legacy ones), as its history entry names it. */
export const apiCall = (ctx: { ip: string }): ChangeOrigin => ({ type: 'API_CALL', ip: ctx.ip });

// The priority lane (docs/seatsio-behaviour.md, "Changing object status"; docs/operations.md, "Concurrency
// limits"): book, hold, release, custom statuses, per event, for event groups and in batches;
// not the season overrides, which docs/api.md lists with the seasons. All of them become
// StatusChangeInputs applied by one script call. The legacy V1 routes (legacyV1.ts) share
// the schemas and the translation below.

/** The longest label the routes take (checked by the schema, and by the direct way for its plain bodies). */
const MAX_LABEL_LENGTH = 200;
const Label = Type.String({ maxLength: MAX_LABEL_LENGTH });
/** The longest hold token a status change takes (the schema, and the direct way for its plain bodies). */
const MAX_HOLD_TOKEN_LENGTH = 200;
export const ObjectItem = Type.Union([
  Label,
  Type.Object({
    objectId: Label,
    ticketType: Type.Optional(Type.String({ maxLength: 100 })),
    // Checked by the domain, so a non-object gets its own error code.
    extraData: Type.Optional(Type.Unknown()),
    quantity: Type.Optional(Type.Number()),
  }),
]);
const Statuses = Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 });

// Checked by the domain (src/domain/bestAvailableRequest.ts), so each mistake gets its own message.
export const BestAvailableBody = Type.Object({
  number: Type.Number(),
  categories: Type.Optional(Type.Array(Type.Union([Type.String({ maxLength: 200 }), Type.Number()]), { maxItems: 100 })),
  zone: Type.Optional(Type.String({ maxLength: 200 })),
  sections: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 1000 })),
  // One element per object picked: as many as `number` may be.
  extraData: Type.Optional(Type.Array(Type.Unknown(), { maxItems: MAX_BEST_AVAILABLE })),
  ticketTypes: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: MAX_BEST_AVAILABLE })),
  tryToPreventOrphanSeats: Type.Optional(Type.Boolean()),
  accessibleSeats: Type.Optional(Type.Number()),
});

const parameterFields = {
  // Absent when bestAvailable chooses the objects (missing otherwise: GENERAL_ERROR; empty: NO_OBJECTS).
  objects: Type.Optional(Type.Array(ObjectItem)),
  bestAvailable: Type.Optional(BestAvailableBody),
  categories: Type.Optional(Type.Array(Type.Union([Type.String({ maxLength: 200 }), Type.Number()]), { maxItems: 100 })),
  holdToken: Type.Optional(Type.String({ maxLength: MAX_HOLD_TOKEN_LENGTH })),
  orderId: Type.Optional(Type.String({ maxLength: 200 })),
  keepExtraData: Type.Optional(Type.Boolean()),
  channelKeys: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100 })),
  ignoreChannels: Type.Optional(Type.Boolean()),
  allowedPreviousStatuses: Type.Optional(Statuses),
  rejectedPreviousStatuses: Type.Optional(Statuses),
  resaleListingId: Type.Optional(Type.String({ maxLength: 200 })),
};
// The status is checked by the domain too (empty or too long → INVALID_STATUS).
const StatusField = Type.Optional(Type.String());
const ChangeType = Type.Union([Type.Literal('CHANGE_STATUS_TO'), Type.Literal('RELEASE')]);
// A batch may also set or drop an event's override of its season's status (docs/seasons.md).
const BatchChangeType = Type.Union([
  Type.Literal('CHANGE_STATUS_TO'),
  Type.Literal('RELEASE'),
  Type.Literal('OVERRIDE_SEASON_STATUS'),
  Type.Literal('USE_SEASON_STATUS'),
]);

const EventBody = Type.Object(parameterFields);
const StatusBody = Type.Object({ ...parameterFields, status: StatusField });
/** The events of one all-or-nothing change on several events. */
export const EventGroup = Type.Array(Type.String({ maxLength: 200 }), { minItems: 1, maxItems: 20 });
const GroupBody = Type.Object({
  ...parameterFields,
  events: EventGroup,
  type: Type.Optional(ChangeType),
  status: StatusField,
});
const BatchBody = Type.Object({
  statusChanges: Type.Array(
    Type.Object({ ...parameterFields, event: Type.String({ maxLength: 200 }), type: Type.Optional(BatchChangeType), status: StatusField }),
    { minItems: 1, maxItems: 100 },
  ),
});

export type ChangeFields = Static<typeof EventBody> & { type?: StatusChangeInput['type']; status?: string };

/** One change of one event, from the fields every route shares; `type` and `status` where the route fixes them. */
export function inputOf(eventKey: string, body: ChangeFields, type = body.type, status = body.status): StatusChangeInput {
  const parameters = parametersOf(body);
  if (body.bestAvailable !== undefined) {
    throw badRequest('BEST_AVAILABLE_NOT_SUPPORTED', 'bestAvailable is for book, hold and change-object-status on one event or season');
  }
  if (body.objects === undefined) throw badRequest('GENERAL_ERROR', 'objects is required (or bestAvailable, on book, hold and change-object-status)');
  return { eventKey, type: type ?? 'CHANGE_STATUS_TO', status, objects: body.objects, parameters };
}

export function parametersOf(body: ChangeFields): StatusParameters {
  return {
    holdToken: body.holdToken,
    orderId: body.orderId,
    keepExtraData: body.keepExtraData,
    channelKeys: body.channelKeys,
    ignoreChannels: body.ignoreChannels,
    allowedPreviousStatuses: body.allowedPreviousStatuses,
    rejectedPreviousStatuses: body.rejectedPreviousStatuses,
    resaleListingId: body.resaleListingId,
  };
}

/** What a status change answers: nothing, or the objects as they are after it. */
const STATUS_ANSWERS = { 204: 'applied', 200: 'with expand=objects: {objects: label -> object details}' };

const CHOOSING_ANSWERS = {
  204: 'applied',
  200: 'with expand=objects: {objects: label -> object details}; with bestAvailable: {objects, objectDetails, nextToEachOther}',
};

const expanded = (ctx: WorkspaceContext) => ctx.query.all('expand').some((value) => value.split(',').includes('objects'));

/**
 * The labels of the plainest body a change takes, `{objects: [label, ...]}` with `status`
 * where `withStatus` and a `holdToken` (read by plainToken); else undefined.
 */
function plainLabels(body: unknown, withStatus: boolean): string[] | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  let objects: unknown;
  for (const name in body) {
    if (name === 'objects') objects = (body as { objects: unknown }).objects;
    else if (!(name === 'holdToken' || (withStatus && name === 'status'))) return undefined;
  }
  if (!Array.isArray(objects) || objects.length === 0) return undefined;
  // What the schema checks of a label (ObjectItem): the handler words any refusal.
  for (const label of objects) if (typeof label !== 'string' || label.length > MAX_LABEL_LENGTH) return undefined;
  return objects as string[];
}

/** A plain body's hold token: undefined when it has none, null when it is not one the direct way takes. */
function plainToken(body: object): string | undefined | null {
  const token = (body as { holdToken?: unknown }).holdToken;
  if (token === undefined) return undefined;
  // An empty token is left to the handler, as any that the schema refuses.
  return typeof token === 'string' && token.length > 0 && token.length <= MAX_HOLD_TOKEN_LENGTH ? token : null;
}

export function objectStatusRoutes(service: StatusChangeService, bestAvailable: BestAvailableService): RouteDef[] {
  /**
   * The direct way through (route.ts, DirectHandler) for a change that names its objects by
   * label alone, with no other field but the status and a hold token: what the handler below does with such a
   * body, through the same service, without a context or the schema check.
   */
  const direct = (type: StatusChangeInput['type'], fixedStatus: string | undefined): DirectHandler => ({ workspace }, params, body, remoteAddress, done) => {
    const labels = plainLabels(body, fixedStatus === undefined);
    if (!labels) return false;
    const holdToken = plainToken(body as object);
    if (holdToken === null) return false;
    const status = fixedStatus ?? (body as { status?: unknown }).status;
    if (status !== undefined && typeof status !== 'string') return false;
    return service.applyPlain(workspace, params.key!, type, status, labels, holdToken, clientIp(remoteAddress), done) !== undefined;
  };

  /**
   * One change on the event of the path: 204, or 200 with the objects when expanded. Where
   * `chooses`, bestAvailable in place of objects picks them: 200 {objects, objectDetails, nextToEachOther}.
   */
  const onEvent = (path: string, summary: string, type: StatusChangeInput['type'], fixedStatus?: string, chooses = false, lane: Lane = 'priority') =>
    workspaceRoute({
      lane,
      method: 'POST',
      path: `/events/:key/actions/${path}`,
      summary,
      answers: chooses ? CHOOSING_ANSWERS : STATUS_ANSWERS,
      query: ExpandQuery,
      body: StatusBody,
      direct: lane === 'priority' ? direct(type, fixedStatus) : undefined,
      handler: async (ctx) => {
        const expand = expanded(ctx);
        const status = fixedStatus ?? ctx.body.status;
        if (chooses && ctx.body.bestAvailable !== undefined) {
          if (ctx.body.objects !== undefined) throw badRequest('OBJECTS_AND_BEST_AVAILABLE', 'Send objects or bestAvailable, not both');
          const { bestAvailable: best, categories } = ctx.body;
          const chosen = await bestAvailable.apply(ctx.workspace, { eventKey: ctx.params.key!, status: status!, bestAvailable: best, categories, parameters: parametersOf(ctx.body) }, apiCall(ctx));
          return { status: 200, body: bestAvailableJson(chosen), contentType: 'application/json' };
        }
        const input = inputOf(ctx.params.key!, ctx.body, type, status);
        const [objects] = await service.apply(ctx.workspace, [input], expand, apiCall(ctx));
        return expand ? ok({ objects }) : noContent();
      },
    });

  return [
    onEvent('book', 'Books objects, all or nothing, or the best available ones', 'CHANGE_STATUS_TO', 'booked', true),
    onEvent('hold', 'Holds objects under a hold token, all or nothing, or the best available ones', 'CHANGE_STATUS_TO', 'reservedByToken', true),
    onEvent('put-up-for-resale', 'Puts objects up for resale, all or nothing', 'CHANGE_STATUS_TO', 'resale'),
    onEvent('release', 'Releases objects, all or nothing', 'RELEASE'),
    onEvent('change-object-status', 'Sets a status on objects, all or nothing, or on the best available ones', 'CHANGE_STATUS_TO', undefined, true),
    onEvent('override-season-status', "Gives an event of a season its own status for objects, free, whatever the season's", 'OVERRIDE_SEASON_STATUS', undefined, false, 'regular'),
    onEvent('use-season-status', "Gives objects of an event of a season the season's status again", 'USE_SEASON_STATUS', undefined, false, 'regular'),

    // Several events in one all-or-nothing change; the map of objects is keyed by label.
    workspaceRoute({
      lane: 'priority',
      method: 'POST',
      path: '/events/groups/actions/change-object-status',
      summary: 'Changes the status of objects in several events, all or nothing',
      answers: STATUS_ANSWERS,
      query: ExpandQuery,
      body: GroupBody,
      handler: async (ctx) => {
        const expand = expanded(ctx);
        // An event named twice is changed once.
        const inputs = [...new Set(ctx.body.events)].map((eventKey) => inputOf(eventKey, ctx.body));
        const results = await service.apply(ctx.workspace, inputs, expand, apiCall(ctx));
        return expand ? ok({ objects: Object.assign({}, ...results) as Record<string, unknown> }) : noContent();
      },
    }),

    // A batch of changes applied in order, all or nothing; results in request order.
    workspaceRoute({
      lane: 'priority',
      method: 'POST',
      path: '/events/actions/change-object-status',
      summary: 'A batch of status changes applied in order, all or nothing',
      answers: { 204: 'applied', 200: 'with expand=objects: {results: [{objects}]}' },
      query: ExpandQuery,
      body: BatchBody,
      handler: async (ctx) => {
        const expand = expanded(ctx);
        const inputs = ctx.body.statusChanges.map((change) => inputOf(change.event, change));
        const results = await service.apply(ctx.workspace, inputs, expand, apiCall(ctx));
        return expand ? ok({ results: results.map((objects) => ({ objects })) }) : noContent();
      },
    }),
  ];
}
