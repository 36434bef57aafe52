import { describe, expect, it } from 'vitest';
import { clientIp } from '../../src/http/clientIp.js';

// The caller's address as history records it, from uWS's binary peer address
// (src/http/clientIp.ts). The integration tests see 127.0.0.1 recorded from real requests.

const bytes = (...values: number[]) => new Uint8Array(values).buffer;

describe('client ip', () => {
  it('IPv4, plain or mapped into IPv6, is dotted', () => {
    expect(clientIp(bytes(192, 0, 2, 1))).toBe('192.0.2.1');
    expect(clientIp(bytes(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 127, 0, 0, 1))).toBe('127.0.0.1');
    expect(clientIp(bytes(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 203, 0, 113, 255))).toBe('203.0.113.255');
    // Asked again: the same answer (from the known addresses).
    expect(clientIp(bytes(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 127, 0, 0, 1))).toBe('127.0.0.1');
  });

  it('other IPv6 addresses as eight groups of four hex digits, as uWS writes them', () => {
    expect(clientIp(bytes(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))).toBe('0000:0000:0000:0000:0000:0000:0000:0001');
    expect(clientIp(bytes(0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0xab, 0xcd, 0x00, 0x0f))).toBe('2001:0db8:0000:0000:0000:0000:abcd:000f');
    // Almost mapped (a non-zero byte before ffff) is not IPv4.
    expect(clientIp(bytes(0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 255, 255, 127, 0, 0, 1))).toBe('0000:0000:0000:0000:0001:ffff:7f00:0001');
  });

  it('no address (a request already gone) is empty', () => {
    expect(clientIp(new ArrayBuffer(0))).toBe('');
  });
});
