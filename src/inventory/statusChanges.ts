import { ApiError, apiError, type ErrorDetail } from '../domain/errors.js';
import { isScriptRefusal, SCRIPT_REFUSALS, SCRIPT_SIGNALS, SENTENCE_REFUSALS, type ScriptRefusal } from '../domain/errorCodes.js';
import type { SeasonScope } from '../domain/season.js';
import type { OriginType } from '../domain/statusChangeHistory.js';
import type { PlannedChange, StatusOperation } from '../domain/statusChangeRequest.js';
import { keptEventKeys, seasonFeedKey, seasonFeedKeyOfTag, seasonOverridesKey, seasonUseKey, seasonUseKeyOfTag, seasonVersionKey, type EventRef } from './eventKeys.js';
import type { AtMostOnceCalls, CallOutcome } from './atMostOnce.js';
import { APPLIED, type StatusReply } from './scripts.js';
import { usageMark, type UsageOwner } from './usedObjects.js';
import { plainRequest } from './plainRequest.js';
import { eventEntry, holdTokenEventsKey, holdTokenKey } from './holdTokenKeys.js';
import { TOKEN_MARK, TOKEN_TO_CHECK_MARK, TOKEN_UNCHECKED_MARK } from './statusContract.js';

// Calls lua/change-object-status.lua: one script call for every object of every change of
// a request, so a request is applied whole or not at all, whatever else runs concurrently.

export interface EventStatusChange {
  event: EventRef;
  change: PlannedChange;
  /** The hold token's expiry (ms epoch), for holds. */
  tokenExpiry?: number;
  /**
   * A plain change's token the status function checks rather than the server, and how:
   * 'entry', a booking's, by the token's entry in the event, else it answers
   * HOLD_TOKEN_UNCHECKED (tokenUnchecked) having done nothing; 'record', a hold's on one Redis,
   * by the token's record (TOKEN_TO_CHECK_MARK, src/inventory/statusContract.ts), else it
   * answers HOLD_TOKEN_REFUSED (tokenRefused) having done nothing, and with the token's expiry
   * in its reply (checkedTokenExpiry). Absent: the server checked the token.
   */
  tokenCheckedBy?: 'entry' | 'record';
  /** For a unit of a season: the other units its changes are checked against. */
  season?: SeasonScope<EventRef>;
}

/** What made a change, as the history records it (docs/history.md). */
export interface ChangeOrigin {
  type: OriginType;
  /** The caller's address, for API calls. */
  ip?: string;
}

export interface AppliedObject {
  /** The object's record after the change ('' when free). */
  record: string;
  /** Its extra data JSON ('' when none). */
  extra: string;
}

/** A hold token that started or stopped holding something in an event (docs/hold-expiry.md). */
export interface HoldingChange {
  event: EventRef;
  token: string;
  holds: boolean;
}

export interface AppliedChanges {
  /** With expand: per change, per object, in request order. */
  objects?: AppliedObject[][];
  holdings: HoldingChange[];
}

/** The holding changes of a script reply: e, token, 1|0 repeated (lua/change-object-status.lua). */
function holdingsOf(raw: unknown, events: EventRef[]): HoldingChange[] {
  const flat = (raw ?? []) as (number | string)[];
  const changes: HoldingChange[] = [];
  for (let i = 0; i + 2 < flat.length; i += 3) {
    changes.push({ event: events[Number(flat[i]) - 1]!, token: String(flat[i + 1]), holds: Number(flat[i + 2]) === 1 });
  }
  return changes;
}

// The script's answers to the server rather than refusals (src/domain/errorCodes.ts, SCRIPT_SIGNALS).
const [SEASON_CHANGED, SEASON_UNITS_NEEDED, HOLD_NOT_EXPIRED, HOLD_TOKEN_UNCHECKED, HOLD_TOKEN_REFUSED] = SCRIPT_SIGNALS;

/** The function refused a plain hold's token it checked (unknown, of another workspace, or expired) and did nothing. */
export const tokenRefused = (reply: StatusReply): boolean => reply !== APPLIED && reply[0] === 0 && (reply[1] as string[])[0] === HOLD_TOKEN_REFUSED;

/** The expiry of the token the function checked for a hold (its reply's fourth element: lua/includes/callState.lua, appliedReply), if any. */
export const checkedTokenExpiry = (reply: StatusReply): number | undefined => (reply !== APPLIED && reply[0] === 1 && reply[3] !== undefined ? Number(reply[3]) : undefined);

/**
 * The function found no unexpired entry of a plain booking's unchecked token in the event
 * (lua/includes/tokenCheck.lua) and did nothing: the server checks the token and sends the call again.
 */
export const tokenUnchecked = (reply: StatusReply): boolean => reply !== APPLIED && reply[0] === 0 && (reply[1] as string[])[0] === HOLD_TOKEN_UNCHECKED;

/**
 * The script refused a change planned on an old make-up of its season (a unit added or
 * marked as past meanwhile): the caller reloads the season and plans again.
 */
export const seasonChanged = () => apiError('SEASON_CHANGED', 'The season changed while this request was being planned; try again');
export const isSeasonChanged = (error: unknown) => error instanceof ApiError && error.errors[0]?.code === SEASON_CHANGED;

/** Every object a refusal of the status script named, by the error `failure` made of it. */
const refusedLabels = new WeakMap<ApiError, string[]>();

/**
 * The objects a refusal of the status script names (`failure`), or null for any other
 * error (a missing hold token, a deadline).
 */
export function refusedObjects(error: unknown): string[] | null {
  return (error instanceof ApiError && refusedLabels.get(error)) || null;
}

/**
 * One error per code, naming every object that failed for that reason in `data.objects`,
 * worded by the registry (src/domain/errorCodes.ts, SCRIPT_REFUSALS); a refusal seats.io
 * words in a sentence of its own (SENTENCE_REFUSALS) is one error per distinct sentence,
 * without `data`. A code the registry lacks is a script and server out of step: an
 * internal error, not a message made up for the client.
 */
function failure(raw: [string, string, string][]): ApiError {
  const groups = new Map<string, { code: ScriptRefusal; labels: string[]; detail: string }>();
  for (const [code, label, detail] of raw) {
    if (!isScriptRefusal(code)) throw new Error(`the status script refused with a code the server does not know: ${code}`);
    const group = SENTENCE_REFUSALS.has(code) ? `${code}\u001e${detail}` : code;
    const entry = groups.get(group) ?? { code, labels: [], detail };
    entry.labels.push(label);
    groups.set(group, entry);
  }
  const details: ErrorDetail[] = [...groups.values()].map(({ code, labels, detail }) => {
    const message = SCRIPT_REFUSALS[code](labels.join(', '), detail);
    return SENTENCE_REFUSALS.has(code) ? { code, message } : { code, message, data: { objects: labels } };
  });
  const [first, ...more] = details;
  const error = new ApiError(400, first!.code, first!.message, { data: first!.data, more });
  refusedLabels.set(error, raw.map(([, label]) => label));
  return error;
}

/** A call applied with nothing more to tell; shared, never changed. */
const NOTHING_MORE: AppliedChanges = Object.freeze({ holdings: Object.freeze([]) as unknown as HoldingChange[] });

/** Operations whose objects count as used (docs/seatsio-behaviour.md, "Usage"): not release, not season overrides. */
const COUNTED_AS_USED = new Set<StatusOperation>(['book', 'hold', 'status']);

/**
 * The usage mark a change's history entries carry, for the drain to count its objects by
 * (src/inventory/usedObjects.ts), or undefined for an operation whose objects are not used.
 */
const usageOf = (event: EventRef, op: StatusOperation, owner: UsageOwner): string | undefined => (COUNTED_AS_USED.has(op) ? usageMark(event, owner) : undefined);

/**
 * What the script needs of the season of each unit in KEYS (lua/change-object-status.lua,
 * ARGV[2] `seasons`), keyed by the unit's position; the season's keys are added to `keys`.
 */
function seasonsPayload(changes: UnitOfCall[], position: Map<number, number>, keys: string[], lite: boolean) {
  const keyIndex = new Map<string, number>();
  const indexOf = (key: string) => {
    if (!keyIndex.has(key)) {
      keys.push(key);
      keyIndex.set(key, keys.length);
    }
    return keyIndex.get(key)!;
  };
  // Only the units a change is made on: the others are only read (their records), so the
  // script needs nothing of their seasons. A season of 100 events stays a small payload.
  const seasons: Record<string, SeasonUnitPayload> = {};
  for (const { event: unit, season: scope } of changes) {
    const at = String(position.get(unit._id));
    if (!scope || !unit.season || seasons[at]) continue;
    const role = unit.season.role;
    const entry: SeasonUnitPayload = {
      use: indexOf(seasonUseKey(unit)),
      vk: indexOf(seasonVersionKey(unit)),
      ver: scope.version,
      nfs: scope.propagated,
      sum: lite ? [] : scope.sum.map((u) => position.get(u._id)!),
      groups: lite ? [] : scope.groups.map((group) => group.map((u) => position.get(u._id)!)),
      fd: indexOf(seasonFeedKey(unit)),
      id: unit._id,
    };
    if (lite) entry.lite = true;
    if (role === 'top') entry.top = true;
    else entry.fb = position.get(scope.top._id);
    if (role === 'event') entry.ov = indexOf(seasonOverridesKey(unit));
    seasons[at] = entry;
  }
  return seasons;
}

/** lua/includes/eventState.lua and seasonRules.lua read these; positions are 1-based among the events of KEYS. */
interface SeasonUnitPayload {
  use: number;
  vk: number;
  ver: string;
  ov?: number;
  top?: boolean;
  /** The units of the scope are not in KEYS (liteSeasonCall). */
  lite?: boolean;
  fb?: number;
  nfs: boolean;
  sum: number[];
  groups: number[][];
  /** The season's feed (its key's position) and the unit's id, which the feed's entries carry (includes/historyEntries.lua). */
  fd: number;
  id: number;
}

/**
 * Whether a call may leave out the units a season booking is checked against (`lite`): a
 * single change on a top-level season, of seats, tables or booths only. The script then
 * decides from the season's count alone, and answers SEASON_UNITS_NEEDED (nothing written)
 * for an object some unit holds; the call is made again with every unit. A batch never goes
 * lite: a change earlier in it may have taken the object without the count showing it yet.
 */
function liteSeasonCall(changes: EventStatusChange[]): boolean {
  const [only, ...more] = changes;
  return more.length === 0 && only?.season?.role === 'top' && only.change.objects.every((o) => o.object.objectType !== 'generalAdmission');
}

export async function applyStatusChanges(
  calls: AtMostOnceCalls,
  changes: EventStatusChange[],
  now: number,
  expand: boolean,
  origin: ChangeOrigin,
  /** Whose usage the changed events count in (the drain counts it from the history). */
  owner: UsageOwner,
  lite = liteSeasonCall(changes),
): Promise<AppliedChanges> {
  const { events, keys, request } = statusCall(changes, expand, origin, owner, lite);
  const outcome = statusOutcome(await calls.changeObjectStatus(events[0]!, keys, now, request), events, lite);
  return outcome === WITH_UNITS ? applyStatusChanges(calls, changes, now, expand, origin, owner, false) : outcome;
}

/**
 * applyStatusChanges for one change of objects by label with no parameters but a hold token
 * (its expiry read already, for a hold), made by an API call from `ip`, without expand (the
 * direct way, src/services/statusChangeService.ts applyPlain). Its outcome goes to `outcome`
 * rather than through promises: the call's reply reaches the answer in one step, and
 * plainOutcome reads it. On an event outside seasons its request is written straight into the
 * call (src/inventory/plainRequest.ts), and its keys are the event's kept list. On a unit of a
 * season other than the season itself (no token: applyPlain keeps those to `apply`) its keys
 * and the season's part of the request are the frame its scope keeps, which names the units the
 * change is checked against and the season's keys (the season itself may have to call twice:
 * applyStatusChanges).
 */
export function applyPlainChange(calls: AtMostOnceCalls, change: EventStatusChange, now: number, ip: string, owner: UsageOwner, outcome: CallOutcome): void {
  const { event, season } = change;
  if (season) {
    if (!plainInSeason(season, change.change.parameters.holdToken)) return outcome.reject(new Error('applyPlainChange takes a unit of a season without a token, not the season itself'));
    const { keys, seasons } = unitFrame(change, false);
    return calls.call(event, keys, now, plainRequest(change.change, undefined, TOKEN_MARK, '', ip, usageOf(event, change.change.op, owner), seasons), outcome);
  }
  const token = change.change.parameters.holdToken;
  if (change.tokenCheckedBy === 'record' && token !== undefined) {
    const request = plainRequest(change.change, undefined, TOKEN_TO_CHECK_MARK, `${owner._id}|${eventEntry(event)}`, ip, usageOf(event, change.change.op, owner));
    return calls.call(event, keptEventKeys(event), now, request, outcome, [holdTokenKey(token), holdTokenEventsKey(token)]);
  }
  const mark = change.tokenCheckedBy === 'entry' ? TOKEN_UNCHECKED_MARK : TOKEN_MARK;
  calls.call(event, keptEventKeys(event), now, plainRequest(change.change, change.tokenExpiry, mark, '', ip, usageOf(event, change.change.op, owner)), outcome);
}

/**
 * Whether applyPlainChange takes a change on a unit of a season: not on the season itself
 * (whose call may have to be made again with its units: applyStatusChanges), and with no hold
 * token (a unit's tokens are checked the general way).
 */
export const plainInSeason = (season: SeasonScope<EventRef>, holdToken: string | undefined): boolean => season.role !== 'top' && holdToken === undefined;

/** What a plain call (applyPlainChange) of `change` applied, read from its reply; throws what refused it. */
export function plainOutcome(reply: StatusReply, change: UnitOfCall): AppliedChanges {
  if (reply === APPLIED) return NOTHING_MORE;
  // A unit's call names the events of its frame (statusCall, kept with its scope).
  return statusOutcome(reply, change.season ? unitFrame(change, false).events : [change.event], false) as AppliedChanges;
}

/** What a call's frame (its events and keys) is made of: the events changed and their seasons' scopes. */
type UnitOfCall = Pick<EventStatusChange, 'event' | 'season'>;

/** The status script answered SEASON_UNITS_NEEDED to a lite call: it is made again with every unit. */
const WITH_UNITS = Symbol('with the units');

/** The events of a call's KEYS in order, its keys (without the record key), and the seasons part of its request as JSON (none outside seasons). */
interface CallFrame {
  events: EventRef[];
  keys: readonly string[];
  seasons: string | undefined;
  /** Each event's position (1-based) in `events`; none when the call has one change, on event 1. */
  position?: Map<number, number>;
}

/**
 * The frame of a call of one change on a unit of a season, made once per scope: the catalog
 * keeps a loaded unit's scope (src/services/eventCatalog.ts) until its season changes, and
 * building the units' keys and the season's part of the request per call was about a tenth
 * of a season booking's server time (docs/performance.md, "The direct path").
 */
const unitFrames = new WeakMap<SeasonScope<EventRef>, { event: EventRef; lite: boolean; frame: CallFrame }>();

function unitFrame(change: UnitOfCall, lite: boolean): CallFrame {
  const scope = change.season!;
  const kept = unitFrames.get(scope);
  if (kept && kept.event === change.event && kept.lite === lite) return kept.frame;
  const { position, ...frame } = framed([change], lite);
  Object.freeze(frame.keys);
  unitFrames.set(scope, { event: change.event, lite, frame });
  return frame;
}

/** The frame of a call of `changes` (framed anew; statusCall keeps the ones it can). */
function framed(changes: UnitOfCall[], lite: boolean): CallFrame {
  const events: EventRef[] = [];
  const position = new Map<number, number>();
  const add = (event: EventRef) => {
    if (!position.has(event._id)) {
      events.push(event);
      position.set(event._id, events.length);
    }
  };
  for (const { event } of changes) add(event);
  // The units of a season a change is checked against come after the changed events: they
  // are only read.
  if (!lite) for (const { season } of changes) if (season) [season.top, ...season.sum, ...season.groups.flat()].forEach(add);
  const keys = events.flatMap((event) => keptEventKeys(event));
  const seasons = changes.some((c) => c.season) ? seasonsPayload(changes, position, keys, lite) : {};
  return { events, keys, seasons: Object.keys(seasons).length > 0 ? JSON.stringify(seasons) : undefined, position };
}

/** The script call for `changes`: the events of KEYS in order, the keys (without the record key), the request JSON. */
function statusCall(changes: EventStatusChange[], expand: boolean, origin: ChangeOrigin, owner: UsageOwner, lite: boolean): { events: EventRef[]; keys: readonly string[]; request: string } {
  // One change on an event outside seasons (nearly every booking) is event 1 of one, its keys
  // the event's own list (kept, not copied); one change on a unit of a season has its frame
  // kept with its scope.
  const only = changes.length === 1 ? changes[0]! : undefined;
  const { events, keys, seasons, position }: CallFrame = !only ? framed(changes, lite) : only.season ? unitFrame(only, lite) : { events: [only.event], keys: keptEventKeys(only.event), seasons: undefined };
  const changesJson = JSON.stringify(
    changes.map(({ event, change, tokenExpiry }) => ({
      e: position ? position.get(event._id) : 1,
      op: change.op,
      status: change.status,
      token: change.parameters.holdToken,
      tokenExpiry,
      orderId: change.parameters.orderId,
      listing: change.parameters.resaleListingId,
      // Setting or dropping a season override leaves the extra data as it is.
      keep: change.parameters.keepExtraData === true || change.op === 'override' || change.op === 'useSeason' || undefined,
      channels: change.parameters.channelKeys,
      ignoreChannels: change.parameters.ignoreChannels || undefined,
      allowed: change.parameters.allowedPreviousStatuses,
      rejected: change.parameters.rejectedPreviousStatuses,
      u: usageOf(event, change.op, owner),
      // Places and capacity only for GA areas (q > 0 marks one).
      objects: change.objects.map((o) =>
        o.quantity > 0 ? { l: o.label, q: o.quantity, c: o.object.capacity, t: o.ticketType, x: o.extraData } : { l: o.label, t: o.ticketType, x: o.extraData },
      ),
    })),
  );
  // Flags that are off and fields that are empty stay out: Redis decodes this JSON on every
  // call, and a shorter text with fewer tables is cheaper to decode (the script reads an
  // absent flag as off).
  let request = '{';
  if (expand) request += '"expand":true,';
  if (origin.type !== 'API_CALL') request += `"origin":${JSON.stringify(origin.type)},`;
  if (origin.ip !== undefined) request += `"ip":${JSON.stringify(origin.ip)},`;
  if (seasons) request += `"seasons":${seasons},`;
  return { events, keys, request: `${request}"changes":${changesJson}}` };
}

/** What the script's reply to a statusCall means; throws its refusals. */
function statusOutcome(reply: StatusReply, events: EventRef[], lite: boolean): AppliedChanges | typeof WITH_UNITS {
  if (reply === APPLIED) return NOTHING_MORE;
  if (reply[0] === 0) {
    const raw = reply.slice(1) as [string, string, string][];
    if (raw.some(([code]) => code === SEASON_CHANGED)) throw seasonChanged();
    if (lite && raw.some(([code]) => code === SEASON_UNITS_NEEDED)) return WITH_UNITS;
    throw failure(raw);
  }
  const results = reply[1] ? (JSON.parse(reply[1] as string) as [string, string][][]) : undefined;
  return {
    objects: results?.map((change) => change.map(([record, extra]) => ({ record, extra }))),
    holdings: holdingsOf(reply[2], events),
  };
}

/** What giving back an expired token's holds in one event did (expireHolds). */
export type ExpiryOutcome = { done: true; holdings: HoldingChange[] } | { done: false; expiresAt: number };

/**
 * Gives back what an expired hold token still holds in one event, through the status
 * script (op `expire`, lua/includes/expiredHolds.lua), recorded as HOLD_EXPIRED. When the
 * event's entry says the token expires later (an expiry change got there first), nothing
 * changes and the outcome names that expiry. The event is known by its tag and id alone
 * (a token's list of events): a tag other than its id makes it a unit of the season with
 * that id, whose records the season counts (docs/seasons.md).
 */
export async function expireHolds(calls: AtMostOnceCalls, event: EventRef, token: string, now: number): Promise<ExpiryOutcome> {
  const keys = keptEventKeys(event).slice();
  // The season's feed gets the entries of a unit of a season (includes/historyEntries.lua).
  // A tag equal to the id is a top-level season or an event outside seasons: the feed is
  // written only if it is there (`fdx`), which it is for a season whose units changed since.
  keys.push(seasonFeedKeyOfTag(event.tag));
  const feed = { fd: keys.length, id: event._id };
  let season: { use?: number; top?: boolean; fd: number; id: number; fdx?: boolean };
  if (event.tag !== String(event._id)) {
    keys.push(seasonUseKeyOfTag(event.tag));
    season = { use: keys.length, ...feed };
  } else {
    season = { top: true, fdx: true, ...feed };
  }
  const seasons = { '1': season };
  const payload = { origin: 'HOLD_EXPIRED', seasons, changes: [{ e: 1, op: 'expire', token, objects: [] }] };
  const reply = await calls.changeObjectStatus(event, keys, now, JSON.stringify(payload));
  if (reply === APPLIED) return { done: true, holdings: [] };
  if (reply[0] === 0) {
    const [code, , detail] = reply[1] as [string, string, string];
    if (code === HOLD_NOT_EXPIRED) return { done: false, expiresAt: Number(detail) };
    throw failure(reply.slice(1) as [string, string, string][]);
  }
  return { done: true, holdings: holdingsOf(reply[2], [event]) };
}
