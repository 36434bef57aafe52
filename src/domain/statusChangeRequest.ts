import type { EventDoc } from './event.js';
import { badRequest, type ErrorCode } from './errors.js';
import { bookableObject } from './eventObjectRules.js';
import type { ChartObject, ObjectIndex } from './objectIndex.js';
import { HELD } from './objectStates.js';
import { eventInThePast } from './season.js';

// A status-changing request (docs/seatsio-behaviour.md, "Changing object status") checked
// against an event's chart and turned into what the script needs, without I/O. Everything
// the script cannot get wrong is refused here with a specific 400: unknown labels,
// quantities, duplicates, statuses, extra data, conflicting parameters.

export const MAX_OBJECTS_PER_REQUEST = 1000;
export const MAX_STATUS_LENGTH = 100;
export const MAX_EXTRA_DATA_BYTES = 10_000;
/** Extra data nests objects and arrays at most this deep (deeper input is an attack, not data). */
export const MAX_EXTRA_DATA_DEPTH = 32;

/** An object as clients send it: a label, or the object format. */
export type ObjectInput =
  | string
  | { objectId: string; ticketType?: string; extraData?: unknown; quantity?: number };

/** 400 TOO_MANY_OBJECTS past the per-request cap (status changes, object info, extra data). */
export function checkObjectCount(count: number): void {
  if (count > MAX_OBJECTS_PER_REQUEST) {
    throw badRequest('TOO_MANY_OBJECTS', `at most ${MAX_OBJECTS_PER_REQUEST} objects per request, got ${count}`);
  }
}

/** `override` / `useSeason`: an event in a season sets or drops its own copy of the season's status. */
export type StatusOperation = 'book' | 'hold' | 'release' | 'status' | 'override' | 'useSeason';

/** How clients name a change: a status, a release, or an event's override of its season's status. */
export type ChangeType = 'CHANGE_STATUS_TO' | 'RELEASE' | 'OVERRIDE_SEASON_STATUS' | 'USE_SEASON_STATUS';

export interface StatusParameters {
  holdToken?: string;
  orderId?: string;
  keepExtraData?: boolean;
  channelKeys?: string[];
  ignoreChannels?: boolean;
  allowedPreviousStatuses?: string[];
  rejectedPreviousStatuses?: string[];
  /** Kept with objects given a status (put up for resale); booking or releasing clears it. */
  resaleListingId?: string;
}

export interface PlannedObject {
  label: string;
  object: ChartObject;
  /** Places of a GA area; 0 for seats, tables and booths. */
  quantity: number;
  ticketType?: string;
  /** Extra data as JSON text. */
  extraData?: string;
}

export interface PlannedChange {
  op: StatusOperation;
  status: string;
  objects: PlannedObject[];
  parameters: StatusParameters;
}

type Operation = Readonly<{ op: StatusOperation; status: string }>;
// The fixed operations, made once: every booking asks for one.
const RELEASE: Operation = Object.freeze({ op: 'release', status: 'free' });
const OVERRIDE: Operation = Object.freeze({ op: 'override', status: '' });
const USE_SEASON: Operation = Object.freeze({ op: 'useSeason', status: '' });
const BOOK: Operation = Object.freeze({ op: 'book', status: 'booked' });
const HOLD: Operation = Object.freeze({ op: 'hold', status: HELD });

/** The operation a status stands for: the SDKs book and hold through change-object-status. */
export function operationFor(type: ChangeType, status: string | undefined): Operation {
  if (type === 'RELEASE') return RELEASE;
  if (type === 'OVERRIDE_SEASON_STATUS') return OVERRIDE;
  if (type === 'USE_SEASON_STATUS') return USE_SEASON;
  const checked = checkStatus(status);
  if (checked === 'booked') return BOOK;
  if (checked === HELD) return HOLD;
  return { op: 'status', status: checked };
}

/** Control characters separate the fields of stored records (lua/includes/constants.lua). */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/**
 * A string the status script stores or compares: no control characters, and well-formed
 * UTF-16 (a lone surrogate cannot be encoded as UTF-8, and the script's JSON decoder
 * refuses it).
 */
function checkText(code: ErrorCode, what: string, value: string | undefined): void {
  if (value === undefined) return;
  if (CONTROL_CHARACTERS.test(value)) throw badRequest(code, `${what} must not contain control characters`);
  if (!(value as string & { isWellFormed(): boolean }).isWellFormed()) {
    throw badRequest(code, `${what} must not contain a lone UTF-16 surrogate`);
  }
}

export function checkStatus(status: string | undefined): string {
  if (status === undefined || status.trim() === '') throw badRequest('INVALID_STATUS', 'status must be a non-empty string');
  checkText('INVALID_STATUS', 'status', status);
  if (status.length > MAX_STATUS_LENGTH) {
    throw badRequest('INVALID_STATUS', `status must be at most ${MAX_STATUS_LENGTH} characters`);
  }
  return status;
}

function checkParameters(op: StatusOperation, parameters: StatusParameters): void {
  if (parameters.ignoreChannels && parameters.channelKeys !== undefined) {
    throw badRequest('CHANNEL_KEYS_WITH_IGNORE_CHANNELS', 'channelKeys and ignoreChannels cannot be combined');
  }
  if (op === 'hold' && !parameters.holdToken) throw badRequest('HOLD_TOKEN_REQUIRED', 'holding objects needs a holdToken');
  checkText('INVALID_ORDER_ID', 'orderId', parameters.orderId);
  checkText('INVALID_RESALE_LISTING_ID', 'resaleListingId', parameters.resaleListingId);
  checkText('HOLD_TOKEN_NOT_FOUND', 'holdToken', parameters.holdToken);
  // Lists looked through only when given: an iterator per absent list is garbage per booking.
  const { channelKeys, allowedPreviousStatuses, rejectedPreviousStatuses } = parameters;
  if (channelKeys) for (const key of channelKeys) checkText('INVALID_CHANNEL_KEY', 'a channel key', key);
  if (allowedPreviousStatuses) for (const status of allowedPreviousStatuses) checkText('INVALID_STATUS', 'a previous status', status);
  if (rejectedPreviousStatuses) for (const status of rejectedPreviousStatuses) checkText('INVALID_STATUS', 'a previous status', status);
}

/** Empty guard lists mean "no guard", as when they are left out (SDKs may send []). */
function withoutEmptyGuards(parameters: StatusParameters): StatusParameters {
  const { allowedPreviousStatuses: allowed, rejectedPreviousStatuses: rejected } = parameters;
  if (allowed?.length !== 0 && rejected?.length !== 0) return parameters;
  return {
    ...parameters,
    allowedPreviousStatuses: allowed && allowed.length > 0 ? allowed : undefined,
    rejectedPreviousStatuses: rejected && rejected.length > 0 ? rejected : undefined,
  };
}

/**
 * How deep objects and arrays nest in a parsed JSON value (an object of scalars is 1),
 * counted without recursion, and no further than one level past the cap.
 */
function depthOf(value: object): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_EXTRA_DATA_DEPTH) return deepest;
    for (const child of Object.values(current)) if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** Extra data as the JSON text stored for an object: a JSON object of at most 10,000 bytes. */
export function extraDataText(label: string, extraData: unknown): string | undefined {
  if (extraData === undefined || extraData === null) return undefined;
  if (typeof extraData !== 'object' || Array.isArray(extraData)) {
    throw badRequest('INVALID_EXTRA_DATA', `extraData of ${label} must be a JSON object`);
  }
  if (depthOf(extraData) > MAX_EXTRA_DATA_DEPTH) {
    throw badRequest('INVALID_EXTRA_DATA', `extraData of ${label} nests deeper than ${MAX_EXTRA_DATA_DEPTH} levels`);
  }
  const text = JSON.stringify(extraData);
  if (Buffer.byteLength(text) > MAX_EXTRA_DATA_BYTES) {
    throw badRequest('INVALID_EXTRA_DATA', `extraData of ${label} exceeds ${MAX_EXTRA_DATA_BYTES} bytes`);
  }
  return text;
}

/** What an object named by its label alone brings (planObjects). */
const NO_DETAILS: Omit<Exclude<ObjectInput, string>, 'objectId'> = Object.freeze({});

/** Up to this many objects, planObjects finds repeats without a Map. */
const FEW_OBJECTS = 16;

function plannedNamed(planned: PlannedObject[], count: number, label: string): PlannedObject | undefined {
  for (let i = 0; i < count; i++) if (planned[i]!.label === label) return planned[i];
  return undefined;
}

/**
 * The objects of a request, resolved on the event's chart. A GA area named several times
 * (or with `quantity`) becomes one entry with the places added up; a seat, table or booth
 * named twice is refused.
 */
export function planObjects(event: Pick<EventDoc, 'tableBookingConfig'>, index: ObjectIndex, inputs: ObjectInput[]): PlannedObject[] {
  if (inputs.length === 0) throw badRequest('NO_OBJECTS', 'objects must name at least one object');
  checkObjectCount(inputs.length);
  // Room for every input at once: a list grown by push takes room for 16 at its first.
  const planned: PlannedObject[] = new Array<PlannedObject>(inputs.length);
  let count = 0;
  // Named twice is found by a look through the few planned so far (a booking names two or
  // four), through a Map only for long lists.
  const byLabel = inputs.length > FEW_OBJECTS ? new Map<string, PlannedObject>() : undefined;
  for (const input of inputs) {
    // A label alone (nearly every booking) makes no object to read it from.
    const label = typeof input === 'string' ? input : input.objectId;
    const { quantity, ticketType, extraData } = typeof input === 'string' ? NO_DETAILS : input;
    const object = bookableObject(event, index, label);
    const isArea = object.objectType === 'generalAdmission';
    if (!isArea && quantity !== undefined) {
      throw badRequest('QUANTITY_NOT_ALLOWED', `${label} is a ${object.objectType}; quantity applies to general admission areas only`);
    }
    if (quantity !== undefined && (!Number.isInteger(quantity) || quantity <= 0)) {
      throw badRequest('INVALID_QUANTITY', `quantity of ${label} must be a positive whole number`);
    }
    const places = isArea ? (quantity ?? 1) : 0;
    const previous = byLabel ? byLabel.get(label) : plannedNamed(planned, count, label);
    if (previous && !isArea) throw badRequest('DUPLICATE_OBJECT', `${label} is named more than once`);
    const entry: PlannedObject = previous ?? { label, object, quantity: 0 };
    entry.quantity += places;
    if (isArea && entry.quantity > object.capacity) {
      throw badRequest('INVALID_QUANTITY', `${label} has ${object.capacity} places; ${entry.quantity} were asked for`);
    }
    checkText('INVALID_TICKET_TYPE', `ticketType of ${label}`, ticketType);
    if (ticketType !== undefined) entry.ticketType = ticketType;
    const text = extraDataText(label, extraData);
    if (text !== undefined) entry.extraData = text;
    if (!previous) {
      planned[count++] = entry;
      byLabel?.set(label, entry);
    }
  }
  // A GA area named more than once is one entry.
  planned.length = count;
  return planned;
}

export function planChange(
  event: Pick<EventDoc, 'tableBookingConfig'> & Partial<Pick<EventDoc, 'key' | 'isInThePast' | 'season'>>,
  index: ObjectIndex,
  op: StatusOperation,
  status: string,
  inputs: ObjectInput[],
  parameters: StatusParameters,
): PlannedChange {
  if (event.isInThePast) throw eventInThePast(event.key ?? '');
  checkParameters(op, parameters);
  const objects = planObjects(event, index, inputs);
  if (op === 'override' || op === 'useSeason') checkSeasonOverride(event, objects);
  return { op, status, objects, parameters: withoutEmptyGuards(parameters) };
}

/** Only an event of a season overrides its season's status, and only of seats, tables and booths. */
function checkSeasonOverride(event: Partial<Pick<EventDoc, 'key' | 'season'>>, objects: PlannedObject[]): void {
  if (event.season?.role !== 'event') {
    throw badRequest('NOT_AN_EVENT_IN_A_SEASON', `${event.key} is not an event in a season: there is no season status to override`);
  }
  const area = objects.find((o) => o.object.objectType === 'generalAdmission');
  if (area) {
    throw badRequest('SEASON_OVERRIDE_NOT_SUPPORTED', `${area.label} is a general admission area; season status is overridden for seats, tables and booths`);
  }
}
