import type { PlannedChange } from '../domain/statusChangeRequest.js';
import { PLAIN_OBJECTS_AT, plainArgs } from './statusContract.js';
import type { StatusArg } from './statusWire.js';

// The status call's request for the plainest change, as positional arguments (PLAIN_ARGS,
// src/inventory/statusContract.ts): one change on event 1 (outside seasons, or a unit of a
// season with its season's part as the JSON text its frame keeps), objects by label with no
// parameters but a hold token, made by an API call, not expanded (src/services/statusChangeService.ts,
// applyPlain). Redis reads these as they come (lua/includes/plainRequest.lua) where it would
// decode a JSON text per call; the call's request argument is then empty. It asks for the
// same change as the JSON statusCall (src/inventory/statusChanges.ts) makes for it
// (test/integration/plainRequest.test.ts holds the two ways' writes equal).

/**
 * A plain call's argument list: made once, with room for the arguments every call has
 * (statusArgs writes them on each send), and sent again as it is after a lost connection.
 */
export function plainRequest(
  change: PlannedChange,
  /** The hold token's expiry (ms epoch), for a hold the server checked the token of. */
  tokenExpiry: number | undefined,
  /** How the token is checked: TOKEN_MARK (by the server), TOKEN_UNCHECKED_MARK or TOKEN_TO_CHECK_MARK (by the function). */
  tokenMark: string,
  /** For TOKEN_TO_CHECK_MARK: `<workspaceId>|<tag>:<eventId>` (PLAIN_ARGS, tokenHold), else ''. */
  tokenHold: string,
  /** The caller's address (the history records it). */
  ip: string | undefined,
  /** The usage mark, for operations whose objects count as used. */
  usage: string | undefined,
  /** For a unit of a season: the season's part of the request, as JSON text (PLAIN_ARGS, seasons). */
  seasons = '',
): StatusArg[] {
  const { objects } = change;
  const token = change.parameters.holdToken;
  let areas = false;
  for (let i = 0; i < objects.length; i++) if (objects[i]!.quantity > 0) areas = true;
  const args = plainArgs(
    { op: change.op, status: change.status, token: token === undefined ? '' : tokenMark + token, tokenExpiry: tokenExpiry ?? '', tokenHold, usage: usage ?? '', ip: ip ?? '', areas: areas ? 1 : 0, seasons },
    objects.length * (areas ? 3 : 1),
  );
  let at = PLAIN_OBJECTS_AT;
  for (let i = 0; i < objects.length; i++) {
    const o = objects[i]!;
    args[at++] = o.label;
    // Places and capacity only for GA areas (q > 0 marks one), as statusCall sends them.
    if (areas) {
      args[at++] = o.quantity;
      args[at++] = o.quantity > 0 ? (o.object.capacity ?? '') : '';
    }
  }
  return args;
}
