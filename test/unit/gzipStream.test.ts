import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GzipStream, ON_THIS_THREAD } from '../../src/util/gzipStream.js';

// The blocks are deflated apart and joined: what comes out must be one valid gzip member
// whose trailer (CRC and length of the whole body) gunzip checks.

async function gzipped(parts: (string | Buffer)[], width?: () => number): Promise<Buffer> {
  const out = new GzipStream(width);
  for (const part of parts) out.write(part);
  return out.finish();
}

describe('GzipStream', () => {
  it('an empty body is a valid gzip of nothing', async () => {
    expect(gunzipSync(await gzipped([])).length).toBe(0);
  });

  it('a body of many blocks, text and bytes mixed, comes back byte for byte', async () => {
    const parts: (string | Buffer)[] = [];
    for (let i = 0; i < 40_000; i++) parts.push(`{"label":"A-${i}","status":"booked","orderId":"${'x'.repeat(i % 50)}"},`);
    parts.push(randomBytes(3 << 20), 'é€😀 the end');
    const body = Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
    expect(body.length).toBeGreaterThan(5 << 20);
    const compressed = await gzipped(parts);
    expect(gunzipSync(compressed).equals(body)).toBe(true);
    // One member: the stock gunzip (which also checks the trailer) reads it the same.
    expect(execFileSync('gzip', ['-dc'], { input: compressed, maxBuffer: 64 << 20 }).equals(body)).toBe(true);
    // One block at a time, or each on the writing thread as it fills, makes the same stream.
    expect((await gzipped(parts, () => 1)).equals(compressed)).toBe(true);
    expect((await gzipped(parts, ON_THIS_THREAD)).equals(compressed)).toBe(true);
  });

  it('a writer waits while more than a few blocks wait to be compressed, and is let go as they are', async () => {
    const out = new GzipStream(() => 1);
    const block = Buffer.alloc(1 << 20, 'a');
    for (let i = 0; i < 8; i++) out.write(block);
    let drained = false;
    const waiting = out.drained().then(() => (drained = true));
    expect(drained).toBe(false);
    await waiting;
    expect(drained).toBe(true);
    expect(gunzipSync(await out.finish()).length).toBe(8 << 20);
  });

  it('compresses text about as well as one stream would', async () => {
    const text = Array.from({ length: 60_000 }, (_, i) => `{"label":"S-${i}","status":"free","forSale":true}`).join(',');
    const compressed = await gzipped([text]);
    expect(compressed.length).toBeLessThan(text.length / 5);
  });

  it.each([
    ['two blocks at once on the thread pool', () => 2],
    ['on the writing thread', ON_THIS_THREAD],
  ])('places parts written apart where they are appended, whole blocks and remainders alike (%s)', async (_, width) => {
    const out = new GzipStream(width);
    const big = out.apart();
    const small = out.apart();
    const bigText = Array.from({ length: 50_000 }, (_, i) => `{"n":${i},"s":"${'q'.repeat(i % 40)}"}`).join(',');
    big.write(bigText.slice(0, 1 << 19));
    small.write('small part');
    big.write(bigText.slice(1 << 19));
    out.write('[');
    out.append(small);
    out.write('|');
    out.append(big);
    out.write(']');
    const body = await out.finish();
    const expected = `[small part|${bigText}]`;
    expect(bigText.length).toBeGreaterThan(3 << 19);
    expect(gunzipSync(body).toString()).toBe(expected);
    expect(execFileSync('gzip', ['-dc'], { input: body, maxBuffer: 64 << 20 }).toString()).toBe(expected);
  });
});

