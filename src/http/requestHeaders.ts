import type { HttpRequest } from 'uWebSockets.js';
import type { RequestHeaders } from './route.js';

// The headers the server reads of a request, read while uWS still has it (its request object
// is gone once the handler returns). uWS frames a body by the first Content-Length, and a
// proxy in front may use another: a repeat is refused (RFC 9112, 6.3), which takes a walk over
// every header. A request with a body is read in that one walk; one without, header by header
// (a walk makes two texts of every header, where a look-up makes one of a header it finds).

/** What the server reads: what handlers see (RequestHeaders), and what frames and names the request. */
export interface ReceivedHeaders extends RequestHeaders {
  contentLength: string;
  /** How many Content-Length headers came: more than one is refused. */
  contentLengths: number;
  transferEncoding: string;
  /** X-Request-Id as the client sent it. */
  requestId: string;
}

type Field = Exclude<keyof ReceivedHeaders, 'contentLengths'>;

/** The names read, as uWS gives them (lower case), and where each goes. */
const FIELDS = new Map<string, { field: Field; bit: number }>(
  (
    [
      ['authorization', 'authorization'],
      ['content-type', 'contentType'],
      ['accept-encoding', 'acceptEncoding'],
      ['x-workspace-key', 'workspaceKey'],
      ['host', 'host'],
      ['if-none-match', 'ifNoneMatch'],
      ['content-length', 'contentLength'],
      ['transfer-encoding', 'transferEncoding'],
      ['x-request-id', 'requestId'],
    ] as [string, Field][]
  ).map(([name, field], i) => [name, { field, bit: 1 << i }]),
);

/** The headers being read by the walk (readHeaders): its callback is one shared function. */
let reading: ReceivedHeaders | undefined;
/** The fields the walk has set, a bit each: a repeated header keeps its first value, as a look-up finds it. */
let seen = 0;

function take(name: string, value: string): void {
  const known = FIELDS.get(name);
  if (known === undefined) return;
  if (known.field === 'contentLength') reading!.contentLengths++;
  if ((seen & known.bit) !== 0) return;
  seen |= known.bit;
  reading![known.field] = value;
}

export function readHeaders(req: HttpRequest): ReceivedHeaders {
  const contentLength = req.getHeader('content-length');
  if (contentLength === '') {
    return {
      authorization: req.getHeader('authorization'),
      contentType: req.getHeader('content-type'),
      acceptEncoding: req.getHeader('accept-encoding'),
      workspaceKey: req.getHeader('x-workspace-key'),
      host: req.getHeader('host'),
      ifNoneMatch: req.getHeader('if-none-match'),
      contentLength,
      contentLengths: 0,
      transferEncoding: req.getHeader('transfer-encoding'),
      requestId: req.getHeader('x-request-id'),
    };
  }
  const headers: ReceivedHeaders = (reading = {
    authorization: '',
    contentType: '',
    acceptEncoding: '',
    workspaceKey: '',
    host: '',
    ifNoneMatch: '',
    contentLength: '',
    contentLengths: 0,
    transferEncoding: '',
    requestId: '',
  });
  try {
    req.forEach(take);
  } finally {
    reading = undefined;
    seen = 0;
  }
  return headers;
}
