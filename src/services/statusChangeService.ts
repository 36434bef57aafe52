import { badRequest } from '../domain/errors.js';
import { chartMembersJson, describeEventObject, eventFields, eventObjectJson, sharedSnapshotJson, type ObjectSnapshot } from '../domain/eventObjectInfo.js';
import { directRules, type ObjectRules } from '../domain/eventObjectRules.js';
import type { ChartObject, ObjectIndex } from '../domain/objectIndex.js';
import { areaState, FREE_OBJECT, objectState, type AreaHolds } from '../domain/objectStates.js';
import {
  operationFor,
  type ChangeType,
  planChange,
  type ObjectInput,
  type PlannedChange,
  type StatusParameters,
} from '../domain/statusChangeRequest.js';
import type { EventRef } from '../inventory/eventKeys.js';
import type { AtMostOnceCalls, CallOutcome } from '../inventory/atMostOnce.js';
import type { EventObjectStore } from '../inventory/eventObjectStore.js';
import type { HistoryStreams } from '../inventory/historyStreams.js';
import { refused, type HoldTokenStore } from '../inventory/holdTokenStore.js';
import type { HoldExpiry } from '../jobs/holdExpiry.js';
import {
  applyPlainChange,
  applyStatusChanges,
  checkedTokenExpiry,
  isSeasonChanged,
  plainInSeason,
  plainOutcome,
  tokenRefused,
  tokenUnchecked,
  type AppliedChanges,
  type ChangeOrigin,
  type EventStatusChange,
} from '../inventory/statusChanges.js';
import type { StatusReply } from '../inventory/scripts.js';
import type { WorkspaceDoc } from '../domain/tenant.js';
import type { EventCatalog, LoadedEvent } from './eventCatalog.js';

// The sales flow: one request's status changes, on one or more events, checked against the
// cached charts and applied by one script call. Nothing here reads MongoDB once the events
// are cached.

export interface StatusChangeInput {
  eventKey: string;
  type: ChangeType;
  status?: string;
  objects: ObjectInput[];
  parameters: StatusParameters;
}

export type ObjectInfos = Record<string, Record<string, unknown>>;

/**
 * How `apply` words each object a change leaves, with expand: as an object (the routes'
 * replies), or straight as its JSON text (applyAsJson: a best-available answer, whose
 * details were most of its allocation as objects made, merged and then stringified).
 */
interface Wording<T> {
  object(event: LoadedEvent['event'], index: ObjectIndex, object: ChartObject, snapshot: ObjectSnapshot, rules: ObjectRules): T;
  /** An object described elsewhere (a season's status given back: ObjectInfoService). */
  described(info: Record<string, unknown>): T;
}

const AS_OBJECTS: Wording<Record<string, unknown>> = {
  object: (event, index, object, snapshot, rules) => describeEventObject(event, index, object, snapshot, rules),
  described: (info) => info,
};

const AS_JSON: Wording<string> = {
  object: (_event, index, object, snapshot, rules) => eventObjectJson(chartMembersJson(index, object), eventFields(object, snapshot, rules)),
  described: (info) => JSON.stringify(info),
};

/**
 * On Redis Cluster a request's changes run as one script call, which may only touch keys
 * of one hash slot: the events of one request must share a hash tag, that is be one event
 * or units of one season (docs/operations.md, "Redis Cluster"). Anything else is refused before any
 * change, rather than applied in parts that could not be all or nothing.
 */
export function requireOneSlot(events: { key: string; tag: string }[]): void {
  const tags = new Set(events.map((event) => event.tag));
  if (tags.size <= 1) return;
  throw badRequest(
    'EVENTS_IN_SEVERAL_SLOTS',
    `On Redis Cluster one request can change objects of one event, or of events of one season, only: ${events.map((e) => e.key).join(', ')} are stored apart. Send one request per event (nothing was changed).`,
  );
}

/** `{"label":details,...}` from each label's details as JSON text (applyAsJson). */
function keyedJson(details: Record<string, string>): string {
  let json = '';
  for (const label in details) json += `${json === '' ? '{' : ','}${JSON.stringify(label)}:${details[label]}`;
  return json === '' ? '{}' : `${json}}`;
}

/** The parameters of a change that names none (applyPlain). */
const NO_PARAMETERS: StatusParameters = Object.freeze({});

/** Where a plain change (applyPlain) ends: settled with no error once applied, else with the error; once. */
export interface PlainChangeDone {
  settled(error?: unknown): void;
}

/**
 * What follows an applied call: the drain hears of the changed events' streams, and tokens
 * that started or stopped holding get their expiry jobs (docs/hold-expiry.md); a call without
 * a token can end the holds of expired tokens on the objects it takes.
 */
function followUp(history: HistoryStreams, holdExpiry: HoldExpiry, changes: EventStatusChange[], applied: AppliedChanges): void {
  for (const { event } of changes) history.noteChangedEvent(event);
  if (applied.holdings.length === 0) return;
  const expiries = new Map(changes.filter((c) => c.tokenExpiry !== undefined).map((c) => [c.change.parameters.holdToken!, c.tokenExpiry!]));
  holdExpiry.holdingsChanged(applied.holdings, (token) => expiries.get(token));
}

/**
 * A plain change (applyPlain) waiting for its call's outcome: the one object the priority
 * lane's plainest request makes between the HTTP layer and Redis, where closures and promises
 * would each be one more (docs/performance.md, "The direct path"). It keeps what sending the call again takes
 * (a booking's token the status function asked the server to check), and for a unit of a
 * season the input, planned again by `apply` when the season changed since it was planned.
 */
class PlainChange implements CallOutcome {
  constructor(
    private readonly service: StatusChangeService,
    readonly change: EventStatusChange,
    readonly workspace: WorkspaceDoc,
    readonly now: number,
    readonly ip: string,
    readonly done: PlainChangeDone,
    private readonly seasonInput?: StatusChangeInput,
  ) {}

  resolve(reply: StatusReply): void {
    const change = this.change;
    // A booking's token the event's entries did not vouch for: checked here, then sent again.
    if (change.tokenCheckedBy === 'entry' && tokenUnchecked(reply)) return this.service.checkTokenThenApply(this);
    if (change.tokenCheckedBy === 'record') {
      // A hold's token the function checked: refused as the server refuses it, or its expiry
      // known now for the hold's expiry job (followUp).
      if (tokenRefused(reply)) return this.done.settled(refused(change.change.parameters.holdToken!));
      change.tokenExpiry = checkedTokenExpiry(reply);
    }
    try {
      followUp(this.service.history, this.service.holdExpiry, [this.change], plainOutcome(reply, this.change));
    } catch (error) {
      return this.reject(error);
    }
    this.done.settled();
  }

  reject(error: unknown): void {
    // Planned on a make-up of its season that changed meanwhile: planned again, as `apply` does.
    if (this.seasonInput && isSeasonChanged(error)) return this.service.replanned(this.workspace, this.seasonInput, this.ip, this.done);
    this.done.settled(error);
  }
}

/** Plans of one request made again after its season changed, before giving up with 409. */
const MAX_SEASON_REPLANS = 3;

export class StatusChangeService {
  constructor(
    private readonly catalog: EventCatalog,
    private readonly holdTokens: HoldTokenStore,
    private readonly calls: AtMostOnceCalls,
    private readonly objects: EventObjectStore,
    readonly history: HistoryStreams,
    readonly holdExpiry: HoldExpiry,
    /**
     * Object info as a client of the event sees it (ObjectInfoService.describe): what a
     * USE_SEASON_STATUS change answers with, since the season's status is not the event's record.
     */
    private readonly describe: (workspace: WorkspaceDoc, eventKey: string, labels: string[]) => Promise<ObjectInfos>,
    /** True on Redis Cluster: the events of one request must share a slot (requireOneSlot). */
    private readonly oneSlotPerRequest = false,
  ) {}

  /**
   * Applies every input, all or nothing; with `expand`, the objects' details per input. A
   * change on a unit of a season planned on a make-up that changed meanwhile (another
   * process may not have dropped its copy yet) is planned again on the season as it is now.
   */
  async apply(workspace: WorkspaceDoc, inputs: StatusChangeInput[], expand: boolean, origin: ChangeOrigin): Promise<ObjectInfos[]> {
    return this.applyWorded(workspace, inputs, expand, origin, AS_OBJECTS);
  }

  /** `apply` of one input, expanded: its objects' details as the JSON text of an object keyed by label. */
  async applyAsJson(workspace: WorkspaceDoc, input: StatusChangeInput, origin: ChangeOrigin): Promise<string> {
    const [details] = await this.applyWorded(workspace, [input], true, origin, AS_JSON);
    return keyedJson(details!);
  }

  /**
   * A best-available choice of seats, tables or booths with no parameter but perhaps a hold
   * token (no order id, ticket type, extra data, channel or guard), applied the plain way
   * (applyPlain, one call that is not expanded) instead of applyAsJson's general one. Its
   * details need nothing read back: such a change leaves each chosen (free) object with the
   * status alone, and a hold with its token too (lua/includes/seatRules.lua, changedObject and
   * changeObject: no order id, ticket type or listing, the extra data dropped), so they are
   * worded from that state as applyAsJson words the records the script answers. Undefined,
   * having done nothing, when applyPlain does not take the change (a hold without a token, one
   * not loaded) or for an event of a season: applyAsJson then.
   */
  applyPlainAsJson(workspace: WorkspaceDoc, eventKey: string, status: string, labels: string[], holdToken: string | undefined, ip: string): Promise<string> | undefined {
    // Best available in a season keeps to applyAsJson, which its season tests cover.
    if (this.catalog.peek(workspace, eventKey)?.event.season) return undefined;
    let done!: PlainChangeDone;
    const applied = new Promise<void>((resolve, reject) => (done = { settled: (error) => (error === undefined ? resolve() : reject(error)) }));
    const started = this.applyPlain(workspace, eventKey, 'CHANGE_STATUS_TO', status, labels, holdToken, ip, done);
    if (!started) return undefined;
    // A change of status never releases: it books, holds or sets a status.
    const { change, loaded: { event, index } } = started;
    const rules = directRules(event, index);
    const snapshot: ObjectSnapshot = { state: { ...FREE_OBJECT, status: change.status, holdToken: change.op === 'hold' ? holdToken! : null } };
    return applied.then(() => sharedSnapshotJson(index, change.objects.map((planned) => planned.object), snapshot, rules));
  }

  private async applyWorded<T>(workspace: WorkspaceDoc, inputs: StatusChangeInput[], expand: boolean, origin: ChangeOrigin, wording: Wording<T>): Promise<Record<string, T>[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.applyOnce(workspace, inputs, expand, origin, wording);
      } catch (error) {
        if (!isSeasonChanged(error) || attempt >= MAX_SEASON_REPLANS) throw error;
        this.catalog.forget(workspace._id, inputs.map((input) => input.eventKey));
      }
    }
  }

  private async applyOnce<T>(workspace: WorkspaceDoc, inputs: StatusChangeInput[], expand: boolean, origin: ChangeOrigin, wording: Wording<T>): Promise<Record<string, T>[]> {
    const now = Date.now();
    const found = this.loadAll(workspace, inputs);
    const loaded = Array.isArray(found) ? found : await found;
    if (this.oneSlotPerRequest) requireOneSlot(loaded.map(({ event }) => event));
    // Every input is checked before any hold token is read.
    const changes: EventStatusChange[] = inputs.map((input, i) => {
      const { event, index, season } = loaded[i]!;
      const { op, status } = operationFor(input.type, input.status);
      return { event, change: planChange(event, index, op, status, input.objects, input.parameters), season, tokenExpiry: undefined };
    });
    // Most calls carry no hold token: they wait for nothing here.
    if (changes.some((c) => c.change.parameters.holdToken)) {
      const expiries = await Promise.all(changes.map(({ event, change }) => this.tokenExpiry(workspace, event, change, now)));
      expiries.forEach((expiry, i) => (changes[i]!.tokenExpiry = expiry));
    }
    const applied = await applyStatusChanges(this.calls, changes, now, expand, origin, workspace);
    followUp(this.history, this.holdExpiry, changes, applied);
    if (!applied.objects) return [];
    const holds = await this.areaHolds(changes, now);
    const results = applied.objects.map((objects, i) => {
      const { event, index } = loaded[i]!;
      const rules = directRules(event, index);
      const infos: Record<string, T> = {};
      changes[i]!.change.objects.forEach((planned, j) => {
        const { record, extra } = objects[j]!;
        const state =
          planned.object.objectType === 'generalAdmission'
            ? { ...areaState(record), holds: holds.get(event._id)?.get(planned.label) ?? null }
            : objectState(record, () => Infinity, now);
        const snapshot = extra ? { state, extraData: JSON.parse(extra) as Record<string, unknown> } : { state };
        infos[planned.label] = wording.object(event, index, planned.object, snapshot, rules);
      });
      return infos;
    });
    // Given back to the season, an object shows the season's status: object info reads it
    // (after the whole request, on the regular lane these changes take).
    for (const [i, { change }] of changes.entries()) {
      if (change.op !== 'useSeason') continue;
      const described = await this.describe(workspace, inputs[i]!.eventKey, change.objects.map((o) => o.label));
      for (const label in described) results[i]![label] = wording.described(described[label]!);
    }
    return results;
  }

  /**
   * The plainest change (src/routes/objectStatus.ts, direct): objects named by label alone, no
   * parameter but a hold token, on an event that the catalog has loaded, outside seasons or (with
   * no token) a unit of a season other than the season itself; what `apply` does for such an
   * input, without its general steps (several events, expand; a booking's token is checked by
   * the status function, checkTokenThenApply when it cannot; a unit whose season changed since
   * it was loaded is planned again by `apply`), made by an API call from `ip`, its outcome given
   * to `done` (settled once: with the error, or with none when applied). Answers with the change
   * it started and its event as loaded (applyPlainAsJson words the answer from them); undefined,
   * having done nothing, for any other: `apply` takes it then. A change the chart refuses throws
   * before anything is sent.
   */
  applyPlain(
    workspace: WorkspaceDoc,
    eventKey: string,
    type: ChangeType,
    status: string | undefined,
    labels: string[],
    holdToken: string | undefined,
    ip: string,
    done: PlainChangeDone,
  ): { change: PlannedChange; loaded: LoadedEvent } | undefined {
    const loaded = this.catalog.peek(workspace, eventKey);
    if (!loaded) return undefined;
    // An event of a season only with its scope loaded, and as plainInSeason allows.
    const { event, season } = loaded;
    if (event.season && !(season && plainInSeason(season, holdToken))) return undefined;
    const { op, status: checked } = operationFor(type, status);
    // A hold needs its token (the handler words its absence); overrides belong to seasons.
    if (op !== 'book' && op !== 'release' && op !== 'status' && !(op === 'hold' && holdToken !== undefined)) return undefined;
    const now = Date.now();
    const change: EventStatusChange = { event, change: planChange(event, loaded.index, op, checked, labels, holdToken === undefined ? NO_PARAMETERS : { holdToken }), season };
    const seasonInput = season && { eventKey, type, status, objects: labels, parameters: NO_PARAMETERS };
    const call = new PlainChange(this, change, workspace, now, ip, done, seasonInput);
    // A booking's token is checked by the status function first, by the token's entry in the
    // event that the checkout's hold made; on one Redis a hold's too, by the token's record
    // (lua/includes/tokenCheck.lua): no round trip for either.
    if (holdToken !== undefined && op === 'book') change.tokenCheckedBy = 'entry';
    if (holdToken !== undefined && op === 'hold' && !this.oneSlotPerRequest) change.tokenCheckedBy = 'record';
    if (holdToken === undefined || change.tokenCheckedBy !== undefined) applyPlainChange(this.calls, change, now, ip, workspace, call);
    else this.checkTokenThenApply(call);
    return { change: change.change, loaded };
  }

  /**
   * A plain change's token checked here (400 unless of this workspace and unexpired; a hold
   * gets its expiry), then the call sent: a hold's on Redis Cluster (where the token's record
   * lives in another slot than the event's), and a booking's whose token the status function
   * could not vouch for (no unexpired entry of it in the event), sent again marked checked.
   */
  checkTokenThenApply(call: PlainChange): void {
    const { change, workspace, now, ip } = call;
    change.tokenCheckedBy = undefined;
    this.tokenExpiry(workspace, change.event, change.change, now).then(
      (expiry) => {
        change.tokenExpiry = expiry;
        applyPlainChange(this.calls, change, now, ip, workspace, call);
      },
      (error: unknown) => call.done.settled(error),
    );
  }

  /** A plain change of a unit of a season refused as planned on an old make-up: `apply`, with the unit loaded again. */
  replanned(workspace: WorkspaceDoc, input: StatusChangeInput, ip: string, done: PlainChangeDone): void {
    this.catalog.forget(workspace._id, [input.eventKey]);
    this.apply(workspace, [input], false, { type: 'API_CALL', ip }).then(
      () => done.settled(),
      (error: unknown) => done.settled(error),
    );
  }

  /** The inputs' events: at once when the catalog has them all loaded (nearly always), else once loaded. */
  private loadAll(workspace: WorkspaceDoc, inputs: StatusChangeInput[]): LoadedEvent[] | Promise<LoadedEvent[]> {
    const cached = inputs.map((input) => this.catalog.peek(workspace, input.eventKey));
    if (cached.every((entry) => entry !== undefined)) return cached as LoadedEvent[];
    return Promise.all(inputs.map((input, i) => cached[i] ?? this.catalog.get(workspace, input.eventKey)));
  }

  /**
   * The expiry of the hold token a change carries: every call with a token is refused (400)
   * unless the token is of this workspace and unexpired, whatever the operation.
   */
  private async tokenExpiry(workspace: WorkspaceDoc, event: EventRef, change: PlannedChange, now: number): Promise<number | undefined> {
    const token = change.parameters.holdToken;
    if (!token) return undefined;
    if (change.op === 'hold') return this.holdTokens.expiryForHold(workspace._id, token, event, now);
    // Only a hold needs the expiry in the script; the others only need the token checked.
    await this.holdTokens.expiryForChange(workspace._id, token, now);
    return undefined;
  }

  /**
   * The holds of the GA areas of the events a request changed areas in, read right after
   * it: the script answers with each area's counts, object details also list its holds.
   */
  private async areaHolds(changes: EventStatusChange[], now: number): Promise<Map<number, Map<string, AreaHolds>>> {
    const byEvent = new Map<number, Map<string, AreaHolds>>();
    for (const { event, change } of changes) {
      if (byEvent.has(event._id) || !change.objects.some((o) => o.object.objectType === 'generalAdmission')) continue;
      byEvent.set(event._id, await this.objects.readAreaHolds(event, now));
    }
    return byEvent;
  }
}
