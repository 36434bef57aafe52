// Every error code a client can see, with its HTTP status and message, in one place: the
// routes, the services and the status script's refusals all name their errors from here,
// so a code cannot be misspelt or given two meanings (docs/api.md, "Keys, errors, general
// rules", lists what the client sees). A site may word the message for its case (naming the
// event, the field); the status and the code come from here.

export interface ErrorKind {
  status: number;
  message: string;
}

export const ERROR_CODES = {
  BEST_AVAILABLE_NOT_SUPPORTED: { status: 400, message: 'Best available not supported' },
  BEST_AVAILABLE_OBJECTS_NOT_FOUND: { status: 400, message: 'Best available objects not found' },
  CATEGORY_NOT_FOUND: { status: 400, message: 'Category not found' },  // also 404 where a site says so
  CHANNELS_MANAGED_ON_SEASON: { status: 400, message: 'Channels managed on season' },
  CHANNEL_KEYS_WITH_IGNORE_CHANNELS: { status: 400, message: 'Channel keys with ignore channels' },
  CHANNEL_NOT_FOUND: { status: 404, message: 'Channel not found' },
  CHART_ALREADY_ARCHIVED: { status: 400, message: 'Chart already archived' },
  CHART_ALREADY_EXISTS: { status: 409, message: 'Chart already exists' },
  CHART_NOT_ARCHIVED: { status: 400, message: 'Chart not archived' },
  CHART_NOT_FOUND: { status: 404, message: 'Chart not found' },
  CHART_VERSION_NOT_FOUND: { status: 404, message: 'Chart version not found' },
  CONCURRENT_MODIFICATION: { status: 409, message: 'Concurrent modification' },
  DEFAULT_WORKSPACE: { status: 400, message: 'Default workspace' },
  DRAWING_VALIDATION_FAILED: { status: 400, message: 'Drawing validation failed' },
  DUPLICATE_CATEGORY_KEY: { status: 400, message: 'Duplicate category key' },
  DUPLICATE_CHANNEL_KEY: { status: 400, message: 'Duplicate channel key' },
  DUPLICATE_CHANNEL_NAME: { status: 400, message: 'Duplicate channel name' },
  DUPLICATE_OBJECT: { status: 400, message: 'Duplicate object' },
  EVENTS_IN_SEVERAL_SLOTS: { status: 400, message: 'Events in several slots' },
  EVENT_IN_THE_PAST: { status: 400, message: 'Event in the past' },
  EVENT_KEY_ALREADY_EXISTS: { status: 400, message: 'Event key already exists' },
  EVENT_NOT_FOUND: { status: 404, message: 'Event not found' },
  EVENT_NOT_IN_PARTIAL_SEASON: { status: 400, message: 'Event not in partial season' },
  EVENT_NOT_IN_SEASON: { status: 400, message: 'Event not in season' },
  FORBIDDEN: { status: 403, message: 'Forbidden' },
  GENERAL_ERROR: { status: 400, message: 'General error' },
  HOLD_TOKEN_MAX_LIFETIME: { status: 400, message: 'Hold token max lifetime' },
  HOLD_TOKEN_NOT_FOUND: { status: 400, message: 'Hold token not found' },  // also 404 where a site says so
  HOLD_TOKEN_REQUIRED: { status: 400, message: 'Hold token required' },
  INTERNAL_ERROR: { status: 500, message: 'Internal error' },
  INVALID_BEST_AVAILABLE: { status: 400, message: 'Invalid best available' },
  INVALID_DRAWING: { status: 400, message: 'Invalid drawing' },
  INVALID_EXTRA_DATA: { status: 400, message: 'Invalid extra data' },
  INVALID_ORDER_ID: { status: 400, message: 'Invalid order id' },
  INVALID_RESALE_LISTING_ID: { status: 400, message: 'Invalid resale listing id' },
  INVALID_CHANNEL_KEY: { status: 400, message: 'Invalid channel key' },
  INVALID_TICKET_TYPE: { status: 400, message: 'Invalid ticket type' },
  INVALID_QUANTITY: { status: 400, message: 'Invalid quantity' },
  INVALID_STATUS: { status: 400, message: 'Invalid status' },
  LAST_SECRET_KEY: { status: 400, message: 'Last secret key' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  NOT_AN_EVENT_IN_A_SEASON: { status: 400, message: 'Not an event in a season' },
  NOT_A_TOP_LEVEL_SEASON: { status: 400, message: 'Not a top level season' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  NOT_READY: { status: 503, message: 'Not ready' },
  NOT_SUPPORTED_FOR_SEASONS: { status: 400, message: 'Not supported for seasons' },
  NO_FOCAL_POINT: { status: 400, message: 'No focal point' },
  NO_OBJECTS: { status: 400, message: 'No objects' },
  OBJECTS_AND_BEST_AVAILABLE: { status: 400, message: 'Objects and best available' },
  OBJECT_ALREADY_IN_CHANNEL: { status: 400, message: 'Object already in channel' },
  OBJECT_NOT_BOOKABLE: { status: 400, message: 'Object not bookable' },
  OBJECT_NOT_FOUND: { status: 400, message: 'Object not found' },  // also 404 where a site says so
  PARTIAL_SEASON_NOT_FOUND: { status: 404, message: 'Partial season not found' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Payload too large' },
  QUANTITY_NOT_ALLOWED: { status: 400, message: 'Quantity not allowed' },
  RATE_LIMIT_EXCEEDED: { status: 429, message: 'Rate limit exceeded' },
  SEASON_CANNOT_BE_IN_THE_PAST: { status: 400, message: 'Season cannot be in the past' },
  SEASON_CHANGED: { status: 409, message: 'Season changed' },
  SEASON_NOT_FOUND: { status: 404, message: 'Season not found' },
  SEASON_OVERRIDE_NOT_SUPPORTED: { status: 400, message: 'Season override not supported' },
  SECRET_KEY_NOT_FOUND: { status: 400, message: 'Secret key not found' },
  SECTION_NOT_FOUND: { status: 400, message: 'Section not found' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Service unavailable' },
  TAG_NOT_FOUND: { status: 404, message: 'Tag not found' },
  TOO_MANY_OBJECTS: { status: 400, message: 'Too many objects' },
  TOO_MANY_SECRET_KEYS: { status: 400, message: 'Too many secret keys' },
  TOO_MANY_TAGS: { status: 400, message: 'Too many tags' },
  UNAUTHORIZED: { status: 401, message: 'Unauthorized' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported media type' },
  WORKSPACE_ACTIVE: { status: 400, message: 'Workspace active' },
  WORKSPACE_INACTIVE: { status: 400, message: 'Workspace inactive' },  // also 403 where a site says so
  WORKSPACE_NOT_FOUND: { status: 403, message: 'Workspace not found' },  // also 404 where a site says so
  ZONE_NOT_FOUND: { status: 400, message: 'Zone not found' },
} as const satisfies Record<string, ErrorKind>;

/**
 * The status script's refusals (lua/includes/failures.lua: every check that fails records a
 * code, the object's label and a detail): 400, worded from the labels that failed for that
 * reason and the detail of the first. SEASON_CHANGED, SEASON_UNITS_NEEDED, HOLD_NOT_EXPIRED,
 * HOLD_TOKEN_UNCHECKED and HOLD_TOKEN_REFUSED are answers to the server, not to the client
 * (src/inventory/statusChanges.ts).
 */
export const SCRIPT_REFUSALS = {
  OBJECT_NOT_FREE: (labels, status) => `Objects are not free: ${labels} (status ${status})`,
  OBJECT_TAKEN_IN_SEASON: (labels, status) => `Objects are taken in another unit of the season: ${labels} (status ${status})`,
  HOLD_TOKEN_MISMATCH: (labels) => `The hold token does not match the hold of: ${labels}`,
  HOLD_TOKEN_EXPIRED: (labels) => `The hold token expired; cannot hold ${labels}`,
  OBJECT_NOT_FOR_SALE: (labels) => `Objects are not for sale: ${labels}`,
  OBJECT_IN_CHANNEL: (labels, channel) =>
      `Objects are in channel ${channel}: ${labels}; pass the channel in channelKeys, or set ignoreChannels`,
  OBJECT_NOT_IN_CHANNEL: (labels) => `Objects have no channel: ${labels}; add NO_CHANNEL to channelKeys`,
  NOT_ENOUGH_FREE_PLACES: (labels, free) => `Not enough free places in ${labels} (${free} free)`,
  OBJECT_NOT_RELEASABLE: (labels) => `Objects cannot be released (nothing to release): ${labels}`,
  ILLEGAL_STATUS_CHANGE: (_labels, detail) => illegalStatusChange(detail),
} as const satisfies Record<string, (labels: string, detail: string) => string>;

/**
 * Refusals seats.io words in its own fixed sentence, which names no object: one error per
 * distinct message, with exactly `code` and `message` (clients compare the error whole).
 */
export const SENTENCE_REFUSALS: ReadonlySet<string> = new Set(['ILLEGAL_STATUS_CHANGE']);

/**
 * seats.io's message for a status guard's refusal (docs/seatsio-behaviour.md, "Changing
 * object status"), from the script's detail: `allowed` or `rejected`, the current status
 * and the status asked for, joined by the unit separator (lua/includes/statusGuard.lua).
 */
function illegalStatusChange(detail: string): string {
  const [list = '', current = '', wanted = ''] = detail.split('\u001f');
  const why = list === 'rejected' ? 'is in the list of rejected previous statuses' : 'is not in the list of allowed previous statuses';
  return `Cannot change from [${current}] to [${wanted}]: ${current} ${why}`;
}

/** What the script may answer that is not a refusal of the client's request. */
export const SCRIPT_SIGNALS = ['SEASON_CHANGED', 'SEASON_UNITS_NEEDED', 'HOLD_NOT_EXPIRED', 'HOLD_TOKEN_UNCHECKED', 'HOLD_TOKEN_REFUSED'] as const;

export type ScriptRefusal = keyof typeof SCRIPT_REFUSALS;
export type ErrorCode = keyof typeof ERROR_CODES | ScriptRefusal;

export const isScriptRefusal = (code: string): code is ScriptRefusal => Object.hasOwn(SCRIPT_REFUSALS, code);

/** The status a code answers with unless its site says otherwise. */
export const statusOf = (code: ErrorCode): number => (isScriptRefusal(code) ? 400 : ERROR_CODES[code].status);
/** The registry's message of a code (a script refusal's needs its labels: use SCRIPT_REFUSALS). */
export const messageOf = (code: keyof typeof ERROR_CODES): string => ERROR_CODES[code].message;
