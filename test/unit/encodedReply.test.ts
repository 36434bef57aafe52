import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodedReply, ifNoneMatchHits, preferredCoding, qualityOf } from '../../src/http/encodedReply.js';
import type { RequestHeaders } from '../../src/http/route.js';
import { EncodedBody } from '../../src/util/encodedBody.js';

// A body encoded once, answered in the coding Accept-Encoding prefers, and 304 for its tag
// (src/http/encodedReply.ts, src/util/encodedBody.ts).

const headers = (acceptEncoding: string, ifNoneMatch = ''): RequestHeaders => ({ authorization: '', contentType: '', acceptEncoding, workspaceKey: '', host: '', ifNoneMatch });

describe('the coding Accept-Encoding prefers', () => {
  it.each([
    ['', 'identity'],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate, br', 'br'],
    ['GZIP, BR', 'br'],
    ['x-gzip', 'gzip'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0.8, gzip;q=0.8', 'br'],
    ['gzip;q=1.0, br;q=0.9', 'gzip'],
    ['gzip;q=0', 'identity'],
    ['gzip; q=0.000, br;q=0', 'identity'],
    ['br;q=0, gzip;q=0.001', 'gzip'],
    ['*', 'br'],
    ['*;q=0', 'identity'],
    ['br;q=0, *', 'gzip'],
    ['gzip, *;q=0', 'gzip'],
    ['deflate, identity', 'identity'],
    ['br;q=x, gzip', 'gzip'],
    ['br;q=2, gzip', 'gzip'],
    ['br;q=, gzip;q=0.1', 'gzip'],
  ])('%j -> %s', (acceptEncoding, coding) => {
    expect(preferredCoding(acceptEncoding)).toBe(coding);
    // The memo of the last header answers the same the second time.
    expect(preferredCoding(acceptEncoding)).toBe(coding);
  });

  it('weighs a coding by its own entry, else by *', () => {
    expect(qualityOf('gzip;q=0.3, *;q=0.9', 'gzip')).toBe(0.3);
    expect(qualityOf('gzip;q=0.3, *;q=0.9', 'br')).toBe(0.9);
    expect(qualityOf('deflate', 'gzip')).toBe(0);
  });
});

describe('If-None-Match', () => {
  const etag = '"abc-br"';
  it.each([
    ['"abc-br"', true],
    ['W/"abc-br"', true],
    ['"x", "abc-br"', true],
    ['"x",W/"abc-br" ', true],
    ['*', true],
    [' * ', true],
    ['', false],
    ['"abc"', false],
    ['"abc-br-x"', false],
    ['abc-br', false],
    ['"x", "y"', false],
  ])('%j names "abc-br": %s', (ifNoneMatch, hits) => {
    expect(ifNoneMatchHits(ifNoneMatch, etag)).toBe(hits);
  });
});

describe('encodedReply', () => {
  const json = Buffer.from(JSON.stringify({ objects: Array.from({ length: 500 }, (_, i) => ({ label: `A-${i}`, x: i })) }));

  it('answers each coding with its bytes, made once, and its own strong tag', async () => {
    const body = new EncodedBody(json, 'application/json');
    const pending = encodedReply(body, headers('gzip, br'));
    expect(pending).toBeInstanceOf(Promise);
    const br = await pending;
    expect(br).toMatchObject({ status: 200, encoding: 'br', contentType: 'application/json', headers: { ETag: body.etags.br, 'Cache-Control': 'no-cache' } });
    expect(brotliDecompressSync(br.body as Buffer).equals(json)).toBe(true);
    // Made: the same Buffer, without waiting.
    const again = encodedReply(body, headers('gzip, br'));
    expect(again).not.toBeInstanceOf(Promise);
    expect((again as { body: Buffer }).body).toBe(br.body);
    const gzip = await encodedReply(body, headers('gzip'));
    expect(gzip.encoding).toBe('gzip');
    expect(gunzipSync(gzip.body as Buffer).equals(json)).toBe(true);
    const identity = encodedReply(body, headers(''));
    expect(identity).toMatchObject({ status: 200, encoding: 'identity', body: json, headers: { ETag: body.etags.identity } });
    expect(new Set(Object.values(body.etags)).size).toBe(3);
    // The tags come from the bytes: the same bytes have the same tags, others other tags.
    expect(new EncodedBody(Buffer.from(json), 'application/json').etags).toEqual(body.etags);
    expect(new EncodedBody(Buffer.from(json.toString().replace('A-1', 'A-x')), 'application/json').etags.br).not.toBe(body.etags.br);
  });

  it('answers 304, without a body, for the tag of the coding it would send', () => {
    const body = new EncodedBody(json, 'application/json');
    expect(encodedReply(body, headers('br', body.etags.br))).toEqual({ status: 304, encoding: 'br', headers: { ETag: body.etags.br, 'Cache-Control': 'no-cache' } });
    expect(encodedReply(body, headers('', `W/${body.etags.identity}`))).toMatchObject({ status: 304, encoding: 'identity' });
    // Another coding's tag: the whole body.
    expect(encodedReply(body, headers('', body.etags.br))).toMatchObject({ status: 200, encoding: 'identity' });
  });
});
