import type { HttpRequest } from 'uWebSockets.js';
import type { RequestHeaders } from './route.js';

// The headers the server reads of a request. uWS's request object is good only until the
// handler returns: a header is read from it when first asked for while it is good, and every
// header is read (keep) before the request waits for anything. A request answered at once
// (/health, a cached GET) reads only what it asks for.
//
// uWS frames a body by the first Content-Length, and a proxy in front may use another: a
// repeat is refused (RFC 9112, 6.3), which takes a walk over every header. A request with a
// body is read in that one walk.

/** Each header read, by its name as uWS gives it (lower case), and the field that keeps its value. */
const FIELDS = {
  authorization: 'authorizationValue',
  'content-type': 'contentTypeValue',
  'accept-encoding': 'acceptEncodingValue',
  'x-workspace-key': 'workspaceKeyValue',
  host: 'hostValue',
  'if-none-match': 'ifNoneMatchValue',
  'content-length': 'contentLengthValue',
  'transfer-encoding': 'transferEncodingValue',
  'x-request-id': 'requestIdValue',
} as const;
type Name = keyof typeof FIELDS;
const FIELD_OF = new Map<string, (typeof FIELDS)[Name]>(Object.entries(FIELDS));
const NAMES = Object.keys(FIELDS) as Name[];

/** The headers being read by a walk (ReceivedHeaders.walk): its callback is one shared function. */
let walking: ReceivedHeaders | undefined;

const walked = (name: string, value: string): void => walking!.walked(name, value);

/**
 * What the server reads: what handlers see (RequestHeaders), and what frames and names the
 * request. A header's value is its field once read ('' when absent); fields, not a list, so
 * a request makes one object for its headers.
 */
export class ReceivedHeaders implements RequestHeaders {
  // The values as read (FIELDS), through the getters below; undefined until then. Each getter
  // names its field itself, so the reads every request makes are plain field accesses.
  authorizationValue: string | undefined;
  contentTypeValue: string | undefined;
  acceptEncodingValue: string | undefined;
  workspaceKeyValue: string | undefined;
  hostValue: string | undefined;
  ifNoneMatchValue: string | undefined;
  contentLengthValue: string | undefined;
  transferEncodingValue: string | undefined;
  requestIdValue: string | undefined;
  /** How many Content-Length headers came: more than one is refused. 1 until a walk counts them. */
  contentLengths = 1;

  constructor(private req: HttpRequest | undefined) {
    if (this.contentLength !== '') this.walk();
  }

  get authorization(): string {
    return (this.authorizationValue ??= this.read('authorization'));
  }
  get contentType(): string {
    return (this.contentTypeValue ??= this.read('content-type'));
  }
  get acceptEncoding(): string {
    return (this.acceptEncodingValue ??= this.read('accept-encoding'));
  }
  get workspaceKey(): string {
    return (this.workspaceKeyValue ??= this.read('x-workspace-key'));
  }
  get host(): string {
    return (this.hostValue ??= this.read('host'));
  }
  get ifNoneMatch(): string {
    return (this.ifNoneMatchValue ??= this.read('if-none-match'));
  }
  get contentLength(): string {
    return (this.contentLengthValue ??= this.read('content-length'));
  }
  get transferEncoding(): string {
    return (this.transferEncodingValue ??= this.read('transfer-encoding'));
  }
  /** X-Request-Id as the client sent it. */
  get requestId(): string {
    return (this.requestIdValue ??= this.read('x-request-id'));
  }

  /** Reads every header not read yet: the request is about to wait, and uWS lets go of it. */
  keep(): void {
    if (this.req === undefined) return;
    for (const name of NAMES) this[FIELDS[name]] ??= this.read(name);
    this.req = undefined;
  }

  /** One header of the walk: a repeated one keeps its first value, as a look-up finds it. */
  walked(name: string, value: string): void {
    const field = FIELD_OF.get(name);
    if (field === 'contentLengthValue') this.contentLengths++;
    else if (field !== undefined) this[field] ??= value;
  }

  /** Every header in one walk; those it does not find are absent (''). */
  private walk(): void {
    this.contentLengths = 0;
    walking = this;
    try {
      this.req!.forEach(walked);
    } finally {
      walking = undefined;
    }
    this.req = undefined;
  }

  /** A header's value as uWS has it; once uWS let go of the request, an unread one is absent. */
  private read(name: Name): string {
    return this.req === undefined ? '' : this.req.getHeader(name);
  }
}
