import { describe, expect, it } from 'vitest';
import { tcpExtCounter } from '../../bench/lib/processes.js';

// The bench reads the machine's TCP retransmission timeouts from /proc/net/netstat
// (bench/lib/processes.ts): a line of names, then a line of values, per protocol.

const netstat = [
  'TcpExt: SyncookiesSent SyncookiesRecv TCPTimeouts TCPMemoryPressures',
  'TcpExt: 0 0 38717 5',
  'IpExt: InNoRoutes TCPTimeouts',
  'IpExt: 0 99',
].join('\n');

describe('tcpExtCounter', () => {
  it('reads a TcpExt counter by its name, not another section of the same name', () => {
    expect(tcpExtCounter(netstat, 'TCPTimeouts')).toBe(38717);
    expect(tcpExtCounter(netstat, 'TCPMemoryPressures')).toBe(5);
  });

  it('answers undefined for a name the kernel does not report, or text without TcpExt', () => {
    expect(tcpExtCounter(netstat, 'TCPNoSuchThing')).toBeUndefined();
    expect(tcpExtCounter(netstat, 'TcpExt:')).toBeUndefined();
    expect(tcpExtCounter('IpExt: InNoRoutes\nIpExt: 0', 'TCPTimeouts')).toBeUndefined();
  });

  it('reads the counter of this machine', async () => {
    const { readFileSync } = await import('node:fs');
    expect(tcpExtCounter(readFileSync('/proc/net/netstat', 'utf8'), 'TCPTimeouts')).toBeGreaterThanOrEqual(0);
  });
});
