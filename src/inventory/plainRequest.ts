import type { PlannedChange } from '../domain/statusChangeRequest.js';
import { PLAIN_ARGS, STATUS_ARGS, TOKEN_MARK } from './statusContract.js';
import type { StatusArg } from './statusWire.js';

// The status call's request for the plainest change, as positional arguments (PLAIN_ARGS,
// src/inventory/statusContract.ts): one change on event 1, objects by label with no
// parameters but a hold token, made by an API call, not expanded (src/services/statusChangeService.ts,
// applyPlain). Redis reads these as they come (lua/includes/plainRequest.lua) where it would
// decode a JSON text per call; the call's request argument is then empty. It asks for the
// same change as the JSON statusCall (src/inventory/statusChanges.ts) makes for it
// (test/integration/plainChanges.test.ts holds the two ways' writes equal).

export class PlainRequest {
  /**
   * The call's arguments: room for STATUS_ARGS (statusArgs writes them on each send), then
   * PLAIN_ARGS' values and the objects, made once and sent again as they are after a lost
   * connection.
   */
  readonly args: StatusArg[];

  constructor(
    change: PlannedChange,
    /** The hold token's expiry (ms epoch), for a hold. */
    tokenExpiry: number | undefined,
    /** The caller's address (the history records it). */
    ip: string | undefined,
    /** The usage mark, for operations whose objects count as used. */
    usage: string | undefined,
  ) {
    const { objects } = change;
    const token = change.parameters.holdToken;
    let areas = false;
    for (let i = 0; i < objects.length; i++) if (objects[i]!.quantity > 0) areas = true;
    // Sized once: a list grown by push is copied as it grows.
    const args = new Array<StatusArg>(STATUS_ARGS.length + PLAIN_ARGS.length + objects.length * (areas ? 3 : 1));
    let at = STATUS_ARGS.length;
    args[at++] = change.op;
    args[at++] = change.status;
    args[at++] = token === undefined ? '' : TOKEN_MARK + token;
    args[at++] = tokenExpiry ?? '';
    args[at++] = usage ?? '';
    args[at++] = ip ?? '';
    args[at++] = areas ? 1 : 0;
    for (let i = 0; i < objects.length; i++) {
      const o = objects[i]!;
      args[at++] = o.label;
      // Places and capacity only for GA areas (q > 0 marks one), as statusCall sends them.
      if (areas) {
        args[at++] = o.quantity;
        args[at++] = o.quantity > 0 ? (o.object.capacity ?? '') : '';
      }
    }
    this.args = args;
  }
}

/** A status call's request: a JSON text (statusCall), or a plain call's arguments. */
export type StatusRequest = string | PlainRequest;
