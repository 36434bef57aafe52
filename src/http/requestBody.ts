import { isUtf8 } from 'node:buffer';
import { ApiError } from '../domain/errors.js';
import { checkAgainst, type RouteDef } from './route.js';

// A request body as handlers get it: JSON checked for its media type, its encoding, its
// syntax and the route's schema, each refused with the spec's error body.

function isJsonType(contentType: string): boolean {
  // What nearly every client sends, checked without taking the header apart.
  if (contentType === 'application/json') return true;
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  return mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
}

/**
 * A request body's text, or null when its bytes are not UTF-8 (readJson refuses it then, in
 * its turn among the checks). Decoding would silently turn invalid bytes into U+FFFD: what is
 * stored must be what was sent. The bytes may be a view of uWS's own memory: the text is
 * made before uWS takes it back, so a body that comes in one piece is never copied.
 */
export function bodyText(bytes: Buffer): string | null {
  return isUtf8(bytes) ? bytes.toString() : null;
}

/** The body's text (bodyText) as JSON (undefined when empty), refused for its media type, its encoding or its syntax. */
export function readJson(route: RouteDef, contentType: string, text: string | null): unknown {
  if (text === '') return undefined;
  if (contentType !== '' && !isJsonType(contentType) && !route.bodyOptions?.anyContentType) {
    throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', `Content-Type ${contentType} is not supported; send application/json`);
  }
  if (text === null) throw new ApiError(400, 'GENERAL_ERROR', 'The request body is not valid UTF-8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, 'GENERAL_ERROR', `Malformed JSON body: ${(error as Error).message}`);
  }
}

/** The body checked against the route's schema (`{}` for an empty body of a route that has one); a route without one takes any JSON. */
export function checkBody(route: RouteDef, body: unknown): unknown {
  if (!route.body) return body;
  const value = body ?? {};
  checkAgainst(route.body, value);
  return value;
}
