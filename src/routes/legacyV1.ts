import Type, { type Static, type TObject } from 'typebox';
import { ApiError, badRequest } from '../domain/errors.js';
import { workspaceOfPublicKey, workspaceOfSecretKey } from '../http/auth.js';
import { CONCURRENCY_ERROR } from '../http/concurrencyLimits.js';
import { checkAgainst, compile, noContent, ok, publicRoute, type BaseContext, type Lane, type Reply, type RouteDef, type WorkspaceCaller } from '../http/route.js';
import type { HoldTokenService } from '../services/holdTokenService.js';
import type { TenantCache } from '../metadata/tenantCache.js';
import type { BestAvailableService } from '../services/bestAvailableService.js';
import type { ObjectInfoService } from '../services/objectInfoService.js';
import type { StatusChangeInput, StatusChangeService } from '../services/statusChangeService.js';
import { createHoldToken, CreateHoldTokenBody } from './holdTokens.js';
import { apiCall, BestAvailableBody, EventGroup, inputOf, ObjectItem, parametersOf, type ChangeFields } from './objectStatus.js';

// The legacy V1 interface (docs/api.md, "Legacy V1 interface"): the calls of the old API, with
// the key in the body (or the path) and events as eventKey / eventKeys, each translated
// into the call the current route makes (objectStatus.ts, holdTokens.ts, eventObjects.ts).
// No rule lives here: what is refused, and why, is the current interface's answer.

export interface LegacyV1Services {
  tenants: TenantCache;
  statusChanges: StatusChangeService;
  bestAvailable: BestAvailableService;
  holdTokens: HoldTokenService;
  objectInfo: ObjectInfoService;
}

const Key = Type.String({ maxLength: 200 });
const EventKey = Type.String({ maxLength: 200 });

const secretKeyField = { secretKey: Key };
/** One event, or several changed all or nothing. */
const eventFields = { eventKey: Type.Optional(EventKey), eventKeys: Type.Optional(EventGroup) };
const changeFields = {
  objects: Type.Optional(Type.Array(ObjectItem)),
  /** The hold token, under its legacy name. */
  reservationToken: Type.Optional(Type.String({ maxLength: 200 })),
  orderId: Type.Optional(Type.String({ maxLength: 200 })),
};
const choosingFields = {
  bestAvailable: Type.Optional(BestAvailableBody),
  indicateWhetherObjectsAreNextToEachOther: Type.Optional(Type.Boolean()),
};

const BookBody = Type.Object({ ...secretKeyField, ...eventFields, ...changeFields, ...choosingFields });
const ReleaseBody = Type.Object({ ...secretKeyField, ...eventFields, ...changeFields });
const ChangeStatusBody = Type.Object({ ...secretKeyField, ...eventFields, ...changeFields, status: Type.Optional(Type.String()) });
const ChangeExtraDataBody = Type.Object({
  ...secretKeyField,
  eventKey: EventKey,
  objectId: Type.String({ maxLength: 200 }),
  extraData: Type.Record(Type.String(), Type.Unknown()),
});
const ReserveBody = Type.Object({ publicKey: Key, event: EventKey, ...changeFields, ...choosingFields });

/** What every status-changing body has, whatever its key and events. */
type ChangeBody = Pick<Static<typeof ReleaseBody>, 'objects' | 'reservationToken' | 'orderId'>;

const KEY_ERRORS = { 401: 'the key is missing from the body (or path) or unknown', 403: 'the workspace is inactive', 429: CONCURRENCY_ERROR };

/** Where a route finds its key: a field of the body, or a parameter of the path. */
type KeySource = { kind: 'secretKey' | 'publicKey'; in: 'body' | 'path' };

const missingKey = (source: KeySource) =>
  new ApiError(401, 'UNAUTHORIZED', `Send the workspace ${source.kind === 'secretKey' ? 'secret' : 'public'} key as ${source.kind} in the ${source.in === 'body' ? 'JSON body' : 'path'}`);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function legacyV1Routes(prefix: string, services: LegacyV1Services): RouteDef[] {
  const { tenants, statusChanges, bestAvailable, holdTokens, objectInfo } = services;

  /**
   * A legacy route: public to the HTTP layer, which knows only Basic auth; the handler
   * authenticates by the key its source names first, then checks the rest of the body.
   * A secret key acts as it does in Basic auth without X-Workspace-Key (src/http/auth.ts).
   * Once the key names the company, the call counts against its concurrency limit (docs/operations.md,
   * "Concurrency limits"), as a call authenticated by the HTTP layer does.
   */
  function legacyRoute<S extends TObject>(def: {
    method?: 'GET' | 'POST';
    path: string;
    summary: string;
    answers: RouteDef['answers'];
    key: KeySource;
    /** The lane of the current call it stands for. */
    lane?: Lane;
    body?: S;
    handler: (caller: WorkspaceCaller, body: Static<S>, ctx: BaseContext) => Promise<Reply>;
  }): RouteDef {
    const validator = def.body && compile(def.body);
    return publicRoute({
      method: def.method ?? 'POST',
      path: prefix + def.path,
      summary: `Legacy V1: ${def.summary}`,
      answers: def.answers,
      lane: def.lane,
      bodyDoc: def.body,
      errors: KEY_ERRORS,
      secretParams: def.key.kind === 'secretKey' && def.key.in === 'path' ? [def.key.kind] : undefined,
      handler: async (ctx) => {
        const body = ctx.body ?? {};
        if (validator && !isRecord(body)) checkAgainst(validator, body);
        const key = def.key.in === 'body' ? (body as Record<string, unknown>)[def.key.kind] : ctx.params[def.key.kind];
        if (typeof key !== 'string' || key === '') throw missingKey(def.key);
        const caller = def.key.kind === 'secretKey' ? await workspaceOfSecretKey(key, tenants) : await workspaceOfPublicKey(key, tenants);
        ctx.countAgainst(caller.tenant.company._id);
        if (validator) checkAgainst(validator, body);
        return def.handler(caller, body as Static<S>, ctx);
      },
    });
  }

  /** The events of a body: eventKey, or eventKeys (each once). */
  function eventsOf(body: { eventKey?: string; eventKeys?: string[] }): string[] {
    if (body.eventKey !== undefined && body.eventKeys !== undefined) throw badRequest('GENERAL_ERROR', 'Send eventKey or eventKeys, not both');
    if (body.eventKey !== undefined) return [body.eventKey];
    if (body.eventKeys !== undefined) return [...new Set(body.eventKeys)];
    throw badRequest('GENERAL_ERROR', 'eventKey (or eventKeys) is required');
  }

  /**
   * The fields of the current interface's status change a legacy body stands for;
   * `bestAvailable` only from the bodies whose schema checked it (book, reserve).
   */
  const changeOf = (body: ChangeBody, type: StatusChangeInput['type'], status: string | undefined, best?: ChangeFields['bestAvailable']): ChangeFields => ({
    objects: body.objects,
    bestAvailable: best,
    holdToken: body.reservationToken,
    orderId: body.orderId,
    type,
    status,
  });

  /**
   * The change on every event, all or nothing (as the event group route does): 204. On one
   * event, bestAvailable picks the objects as book and hold do: 200 with the labels, or with
   * indicateWhetherObjectsAreNextToEachOther {objects, nextToEachOther} (left out, as in the
   * current answer, when tables or booths were picked).
   */
  async function change(caller: WorkspaceCaller, ctx: BaseContext, eventKeys: string[], fields: ChangeFields, indicate?: boolean): Promise<Reply> {
    if (fields.bestAvailable !== undefined && eventKeys.length === 1) {
      if (fields.objects !== undefined) throw badRequest('OBJECTS_AND_BEST_AVAILABLE', 'Send objects or bestAvailable, not both');
      const request = { eventKey: eventKeys[0]!, status: fields.status!, bestAvailable: fields.bestAvailable, parameters: parametersOf(fields) };
      const chosen = await bestAvailable.apply(caller.workspace, request, apiCall(ctx));
      return ok(indicate ? { objects: chosen.objects, nextToEachOther: chosen.nextToEachOther } : chosen.objects);
    }
    const inputs = eventKeys.map((eventKey) => inputOf(eventKey, fields));
    await statusChanges.apply(caller.workspace, inputs, false, apiCall(ctx));
    return noContent();
  }

  const CHOOSING_ANSWERS = {
    204: 'applied',
    200: 'with bestAvailable: the labels picked; with indicateWhetherObjectsAreNextToEachOther, {objects, nextToEachOther}',
  };
  const bySecretKey: KeySource = { kind: 'secretKey', in: 'body' };

  return [
    legacyRoute({
      path: '/book',
      lane: 'priority',
      summary: 'books objects (or the best available ones) in one or more events, all or nothing',
      answers: CHOOSING_ANSWERS,
      key: bySecretKey,
      body: BookBody,
      handler: (caller, body, ctx) =>
        change(caller, ctx, eventsOf(body), changeOf(body, 'CHANGE_STATUS_TO', 'booked', body.bestAvailable), body.indicateWhetherObjectsAreNextToEachOther),
    }),
    legacyRoute({
      path: '/release',
      lane: 'priority',
      summary: 'releases objects in one or more events, all or nothing',
      answers: { 204: 'applied' },
      key: bySecretKey,
      body: ReleaseBody,
      handler: (caller, body, ctx) => change(caller, ctx, eventsOf(body), changeOf(body, 'RELEASE', undefined)),
    }),
    legacyRoute({
      path: '/changeStatus',
      lane: 'priority',
      summary: 'sets a status on objects in one or more events, all or nothing',
      answers: { 204: 'applied' },
      key: bySecretKey,
      body: ChangeStatusBody,
      handler: (caller, body, ctx) => change(caller, ctx, eventsOf(body), changeOf(body, 'CHANGE_STATUS_TO', body.status)),
    }),
    legacyRoute({
      path: '/changeExtraData',
      summary: 'replaces the extra data of one object',
      answers: { 204: 'replaced' },
      key: bySecretKey,
      body: ChangeExtraDataBody,
      handler: async (caller, body) => {
        await objectInfo.setExtraData(caller.workspace, body.eventKey, [[body.objectId, body.extraData]]);
        return noContent();
      },
    }),
    legacyRoute({
      path: '/reserve',
      lane: 'priority',
      summary: 'holds objects (or the best available ones) under a reservation token, all or nothing',
      answers: CHOOSING_ANSWERS,
      key: { kind: 'publicKey', in: 'body' },
      body: ReserveBody,
      handler: (caller, body, ctx) => change(caller, ctx, [body.event], changeOf(body, 'CHANGE_STATUS_TO', 'reservedByToken', body.bestAvailable), body.indicateWhetherObjectsAreNextToEachOther),
    }),
    legacyRoute({
      path: '/reservationToken/:publicKey',
      lane: 'priority',
      summary: "creates a reservation token (a hold token) living expiresInMinutes (1..120) or the company's hold period",
      answers: { 200: '{reservationToken, expiresAt, expiresInSeconds}' },
      key: { kind: 'publicKey', in: 'path' },
      body: CreateHoldTokenBody,
      handler: async (caller, body) => {
        const token = await createHoldToken(holdTokens, caller, body.expiresInMinutes);
        return ok({ reservationToken: token.holdToken, expiresAt: token.expiresAt, expiresInSeconds: token.expiresInSeconds });
      },
    }),
    legacyRoute({
      method: 'GET',
      path: '/event/:eventKey/orders/:orderId/:secretKey',
      summary: 'the labels of the objects changed under an order id',
      answers: { 200: 'the labels, sorted' },
      key: { kind: 'secretKey', in: 'path' },
      handler: async (caller, _body, ctx) => ok(await objectInfo.orderLabels(caller.workspace, ctx.params.eventKey!, ctx.params.orderId!)),
    }),
  ];
}
