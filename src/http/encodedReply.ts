import type { ContentCoding, EncodedBody } from '../util/encodedBody.js';
import type { Reply, RequestHeaders } from './route.js';

// Answering a body encoded once (src/util/encodedBody.ts): in the content coding the
// request's Accept-Encoding prefers (RFC 9110, 12.5.3), with that coding's entity tag, and
// 304 Not Modified without a body when If-None-Match names it (RFC 9110, 13.1.2).

/**
 * The weight (0 to 1) Accept-Encoding gives `coding`: its own entry's, else `*`'s, else 0.
 * An entry whose weight is not a number counts as absent.
 */
export function qualityOf(acceptEncoding: string, coding: 'br' | 'gzip'): number {
  let own: number | undefined;
  let any: number | undefined;
  for (const entry of acceptEncoding.split(',')) {
    const [name = '', ...params] = entry.split(';');
    const token = name.trim().toLowerCase();
    const isOwn = token === coding || (coding === 'gzip' && token === 'x-gzip');
    if (!isOwn && token !== '*') continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=');
      if (key?.trim().toLowerCase() === 'q') q = value === undefined || value.trim() === '' ? NaN : Number(value.trim());
    }
    if (!(q >= 0 && q <= 1)) continue;
    if (isOwn) own = Math.max(own ?? 0, q);
    else any = q;
  }
  return own ?? any ?? 0;
}

/** The last header preferredCoding read, and its answer: clients of one kind send one header. */
let lastAcceptEncoding = '';
let lastPreferred: ContentCoding = 'identity';

/** Brotli or gzip, whichever Accept-Encoding weighs more (brotli when equal); identity when it accepts neither. */
export function preferredCoding(acceptEncoding: string): ContentCoding {
  if (acceptEncoding === lastAcceptEncoding) return lastPreferred;
  const br = qualityOf(acceptEncoding, 'br');
  const gzip = qualityOf(acceptEncoding, 'gzip');
  const preferred: ContentCoding = br === 0 && gzip === 0 ? 'identity' : br >= gzip ? 'br' : 'gzip';
  lastAcceptEncoding = acceptEncoding;
  lastPreferred = preferred;
  return preferred;
}

const ENTITY_TAG = /(?:W\/)?"([^"]*)"/g;

/**
 * Whether If-None-Match names `etag` (a quoted strong tag), compared weakly as the RFC asks:
 * `*`, or a tag of its list with the same text, `W/` or not.
 */
export function ifNoneMatchHits(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch === '') return false;
  // A client sends back the one tag it was given, most often.
  if (ifNoneMatch === etag) return true;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = etag.slice(1, -1);
  for (const [, text] of ifNoneMatch.matchAll(ENTITY_TAG)) if (text === opaque) return true;
  return false;
}

/**
 * The answer to a GET of `body`: 304 when If-None-Match names the preferred coding's tag,
 * else 200 with that coding's bytes (a promise only the first time they are made). Clients
 * may keep it, and ask again with its tag each time (`cacheControl`).
 */
export function encodedReply(body: EncodedBody, headers: RequestHeaders, cacheControl = 'no-cache'): Reply | Promise<Reply> {
  const encoding = preferredCoding(headers.acceptEncoding);
  const replyHeaders = { ETag: body.etags[encoding], 'Cache-Control': cacheControl };
  if (ifNoneMatchHits(headers.ifNoneMatch, replyHeaders.ETag)) return { status: 304, headers: replyHeaders, encoding };
  const bytes = body.in(encoding);
  const reply = (buffer: Buffer): Reply => ({ status: 200, body: buffer, contentType: body.contentType, headers: replyHeaders, encoding });
  return bytes instanceof Promise ? bytes.then(reply) : reply(bytes);
}
