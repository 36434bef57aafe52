import { EVENT_KEY_NAMES } from './eventKeys.js';
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

/** The function's arguments, in ARGV order. */
export const STATUS_ARGS = [
  /** Now (ms epoch): holds whose token expired by then count as free. */
  'now',
  /** The request, JSON (src/inventory/statusChanges.ts builds it; src/inventory/plainRequest.ts writes a plain one). */
  'request',
  /** The request's deadline (ms epoch, Redis's clock): later, nothing is done. */
  'deadline',
  /** How long (ms) the record of a successful call is kept. */
  'keepMs',
  /** 1 when the same call was sent before (a repeat after a lost connection), else 0. */
  'sentBefore',
] as const;

export type StatusArgs = Record<(typeof STATUS_ARGS)[number], StatusArg>;

/** The arguments in ARGV order (a loop, not a map: no callback made per call on the priority lane). */
export function statusArgs(values: StatusArgs): StatusArg[] {
  const args = new Array<StatusArg>(STATUS_ARGS.length);
  for (let i = 0; i < STATUS_ARGS.length; i++) args[i] = values[STATUS_ARGS[i]!];
  return args;
}

/** The name scripts include the contract by. */
export const STATUS_CONTRACT_INCLUDE = 'statusContract.lua';

/** `extraData` -> `EXTRA_DATA` */
const constantName = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();

/** The contract as Lua constants: KEYS_PER_EVENT, EVENT_KEY_<NAME> (1-based within an event's keys), ARG_<NAME>. */
export function statusContractLua(): string {
  return [
    '-- The status call\'s contract, made from src/inventory/statusContract.ts: positions named once for both sides.',
    `local KEYS_PER_EVENT = ${EVENT_KEY_NAMES.length}`,
    ...EVENT_KEY_NAMES.map((name, i) => `local EVENT_KEY_${constantName(name)} = ${i + 1}`),
    ...STATUS_ARGS.map((name, i) => `local ARG_${constantName(name)} = ${i + 1}`),
    '',
  ].join('\n');
}
