import { EVENT_KEY_NAMES } from './eventKeys.js';
import { KEPT_FOR_MS } from './holdTokenKeys.js';
import type { StatusArg } from './statusWire.js';

// The status function's call (lua/change-object-status.lua), declared once for both sides:
// the server builds the call's keys and arguments from these lists, and the Lua reads their
// positions from constants made from the same lists (statusContractLua, included by the
// scripts that need them as `--#include statusContract.lua`; it is made here, not a file in
// lua/includes). Moving a position is a change to one list: the Lua follows, and the
// function's version (a hash of its assembled source, src/inventory/scripts.ts) changes with it.
//
// KEYS: each event's keys in EVENT_KEY_NAMES order (src/inventory/eventKeys.ts), the changed
// events first, then the units of their seasons the changes are checked against; then the
// seasons' keys the request names by position; last, the request's record key.
// ARGV: STATUS_ARGS, in order; the request (a JSON text) is described in the Lua file's header.
// A plain call (src/inventory/plainRequest.ts) sends an empty request and its change as
// PLAIN_ARGS after them, then its objects (lua/includes/plainRequest.lua reads them). A plain
// hold whose token the function checks (TOKEN_TO_CHECK_MARK) has the token's two keys
// (TOKEN_KEYS) between the event's keys and the record key.

/** The function's arguments, in ARGV order. */
export const STATUS_ARGS = [
  /** Now (ms epoch): holds whose token expired by then count as free. */
  'now',
  /** The request, JSON (src/inventory/statusChanges.ts builds it), or '' for a plain call, whose change follows as PLAIN_ARGS. */
  'request',
  /** The request's deadline (ms epoch, Redis's clock): later, nothing is done. */
  'deadline',
  /**
   * How long (ms) the record hash is kept from this call on, if it succeeds; '' when a call of
   * this process on the same hash succeeded with a time to keep already (src/inventory/atMostOnce.ts, RecordHash).
   */
  'keepMs',
  /** 1 when the same call was sent before (a repeat after a lost connection), else 0. */
  'sentBefore',
  /** The call's id: its field in the record key (the call's last key). */
  'recordId',
] as const;

export type StatusArgs = Record<(typeof STATUS_ARGS)[number], StatusArg>;

/**
 * A status call's request (STATUS_ARGS, `request`): a JSON text (statusCall,
 * src/inventory/statusChanges.ts), or a plain call's argument list (src/inventory/plainRequest.ts).
 */
export type StatusRequest = string | StatusArg[];

/**
 * A plain call's change (one change on event 1, made by an API call, not expanded; event 1
 * alone, or a unit of a season and the other units of its scope after it),
 * after STATUS_ARGS, in order, then its objects from ARG_OBJECTS on: labels, or with `areas`
 * 1, triples of label, places and capacity (places 0 for a seat, capacity '' when unknown).
 * Positional, so that Redis reads them as they are instead of decoding a JSON text per call.
 */
export const PLAIN_ARGS = [
  'op',
  'status',
  /**
   * '' when the change has no hold token, else a mark and the token (a token may be empty):
   * TOKEN_MARK when the server checked the token, TOKEN_UNCHECKED_MARK for a booking whose
   * token the function checks by the token's entry in the event (lua/includes/tokenCheck.lua).
   */
  'token',
  /** The hold token's expiry (ms epoch) for a hold, else ''. */
  'tokenExpiry',
  /**
   * For a hold whose token the function checks (TOKEN_TO_CHECK_MARK): the caller's workspace
   * id and the event as the token's events set lists it, `<workspaceId>|<tag>:<eventId>`; else ''.
   */
  'tokenHold',
  /** The usage mark of a change whose objects count as used, else ''. */
  'usage',
  /** The caller's address, or ''. */
  'ip',
  /** 1 when the objects come as label, places and capacity; 0 when as labels alone. */
  'areas',
  /**
   * For a unit of a season, the season's part of the request as the JSON text statusCall
   * sends (`{"1": {...}}`: lua/change-object-status.lua, `seasons`), kept with the unit's
   * call frame (src/inventory/statusChanges.ts); else ''.
   */
  'seasons',
] as const;

export type PlainArgs = Record<(typeof PLAIN_ARGS)[number], StatusArg>;

/** Marks a token given in the `token` argument, so an empty token differs from none. */
export const TOKEN_MARK = '=';
/**
 * Marks a booking's token the server has not checked: the function takes it if the event
 * has an unexpired entry for it, else answers HOLD_TOKEN_UNCHECKED (nothing written) and the
 * server checks it and sends the call again with TOKEN_MARK. As long as TOKEN_MARK: the Lua
 * cuts either off by that length.
 */
export const TOKEN_UNCHECKED_MARK = '?';
/**
 * Marks a hold's token the function checks against the token's record, as
 * lua/hold-token-for-event-2.lua does (of the caller's workspace, unexpired; then the event
 * joins the token's events set): the server sends the hold at once instead of making that call
 * first and waiting for it. The token's record and events set are the call's TOKEN_KEYS, so
 * only on one Redis (on a cluster they live in the token's slot, not the event's). A refused
 * token is answered HOLD_TOKEN_REFUSED, with nothing written.
 */
export const TOKEN_TO_CHECK_MARK = '!';
/** The keys a TOKEN_TO_CHECK_MARK call carries before the record key, in order (src/inventory/holdTokenKeys.ts names them). */
export const TOKEN_KEYS = ['token', 'tokenEvents'] as const;

/** `values` of the arguments `names` declares, in their order, into `into` from `at` (a loop, not a map: no callback per call on the priority lane). */
function writeArgs<Name extends string>(names: readonly Name[], values: Record<Name, StatusArg>, into: StatusArg[], at: number): void {
  for (let i = 0; i < names.length; i++) into[at + i] = values[names[i]!];
}

/**
 * The arguments in ARGV order, written into the first places of `into` when given: a plain
 * call's list (plainArgs), whose PLAIN_ARGS and objects follow them, so no second list is
 * made per call.
 */
export function statusArgs(values: StatusArgs, into: StatusArg[] = new Array<StatusArg>(STATUS_ARGS.length)): StatusArg[] {
  writeArgs(STATUS_ARGS, values, into, 0);
  return into;
}

/** Where a plain call's objects start in its argument list (ARG_OBJECTS in the Lua, 0-based here). */
export const PLAIN_OBJECTS_AT = STATUS_ARGS.length + PLAIN_ARGS.length;

/**
 * A plain call's list: room for STATUS_ARGS (statusArgs writes them on each send), then
 * PLAIN_ARGS' `values`, then `objects` places for the objects, which the caller writes from
 * PLAIN_OBJECTS_AT on.
 */
export function plainArgs(values: PlainArgs, objects: number): StatusArg[] {
  const args = new Array<StatusArg>(PLAIN_OBJECTS_AT + objects);
  writeArgs(PLAIN_ARGS, values, args, STATUS_ARGS.length);
  return args;
}

/** The name scripts include the contract by. */
export const STATUS_CONTRACT_INCLUDE = 'statusContract.lua';

/** `extraData` -> `EXTRA_DATA` */
const constantName = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();

/**
 * A batch's ARGV (lua/change-object-status.lua, runBatch; Scripts.sendStatusBatch): the number
 * of requests, then per request this head followed by its arguments as a lone call's ARGV.
 */
export const BATCH_REQUEST_HEAD = [
  /** How many keys of its own the request has (a hold's token keys), after the shared ones. */
  'moreKeys',
  /** How many arguments follow the head. */
  'argCount',
] as const;

/**
 * The contract as Lua constants: KEYS_PER_EVENT, EVENT_KEY_<NAME> (1-based within an event's keys), ARG_<NAME> (PLAIN_ARGS' too),
 * ARG_OBJECTS, the token marks, TOKEN_KEY_FROM_END_<NAME> and how long a token's events set is kept (TOKEN_EVENTS_KEPT_MS), and a batch's
 * positions (BATCH_*).
 */
export function statusContractLua(): string {
  return [
    '-- The status call\'s contract, made from src/inventory/statusContract.ts: positions named once for both sides.',
    `local KEYS_PER_EVENT = ${EVENT_KEY_NAMES.length}`,
    ...EVENT_KEY_NAMES.map((name, i) => `local EVENT_KEY_${constantName(name)} = ${i + 1}`),
    ...STATUS_ARGS.map((name, i) => `local ARG_${constantName(name)} = ${i + 1}`),
    ...PLAIN_ARGS.map((name, i) => `local ARG_${constantName(name)} = ${STATUS_ARGS.length + i + 1}`),
    `local ARG_OBJECTS = ${PLAIN_OBJECTS_AT + 1}`,
    `local TOKEN_MARK = '${TOKEN_MARK}'`,
    `local TOKEN_UNCHECKED_MARK = '${TOKEN_UNCHECKED_MARK}'`,
    `local TOKEN_TO_CHECK_MARK = '${TOKEN_TO_CHECK_MARK}'`,
    // 1-based from the end: KEYS[#KEYS - TOKEN_KEY_FROM_END_<NAME>], the record key being last.
    ...TOKEN_KEYS.map((name, i) => `local TOKEN_KEY_FROM_END_${constantName(name)} = ${TOKEN_KEYS.length - i}`),
    `local TOKEN_EVENTS_KEPT_MS = ${KEPT_FOR_MS}`,
    // A batch: ARGV[BATCH_ARG_COUNT] requests, the first one's head at BATCH_FIRST_REQUEST; a
    // head's fields at offsets from its start, its arguments after BATCH_HEAD_LENGTH of them.
    'local BATCH_ARG_COUNT = 1',
    'local BATCH_FIRST_REQUEST = 2',
    ...BATCH_REQUEST_HEAD.map((name, i) => `local BATCH_HEAD_${constantName(name)} = ${i}`),
    `local BATCH_HEAD_LENGTH = ${BATCH_REQUEST_HEAD.length}`,
    '',
  ].join('\n');
}
