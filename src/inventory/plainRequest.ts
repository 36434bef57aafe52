import type { PlannedChange } from '../domain/statusChangeRequest.js';
import { TOKEN_MARK } from './statusContract.js';
import type { StatusArg } from './statusWire.js';

// The status call's request for the plainest change, as positional arguments (PLAIN_ARGS,
// src/inventory/statusContract.ts): one change on event 1, objects by label with no
// parameters but a hold token, made by an API call, not expanded (src/services/statusChangeService.ts,
// applyPlain). Redis reads these as they come (lua/includes/plainRequest.lua) where it would
// decode a JSON text per call; the call's request argument is then empty. It asks for the
// same change as the JSON statusCall (src/inventory/statusChanges.ts) makes for it
// (test/integration/plainChanges.test.ts holds the two ways' writes equal).

export class PlainRequest {
  /** PLAIN_ARGS' values, then the objects: made once, sent again as they are after a lost connection. */
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
    const args: StatusArg[] = [change.op, change.status, token === undefined ? '' : TOKEN_MARK + token, tokenExpiry ?? '', usage ?? '', ip ?? '', areas ? 1 : 0];
    for (let i = 0; i < objects.length; i++) {
      const o = objects[i]!;
      args.push(o.label);
      // Places and capacity only for GA areas (q > 0 marks one), as statusCall sends them.
      if (areas) args.push(o.quantity, o.quantity > 0 ? (o.object.capacity ?? '') : '');
    }
    this.args = args;
  }
}

/** A status call's request: a JSON text (statusCall), or a plain call's arguments. */
export type StatusRequest = string | PlainRequest;
