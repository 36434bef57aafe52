// The caller's address as status changes record it (docs/history.md), from the peer address
// uWS gives as text.

/** An IPv4-mapped IPv6 address, written out (`0:0:0:0:0:ffff:`) or short (`::ffff:`). */
const IPV4_MAPPED = /^(?:(?:0{1,4}:){5}|::)ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;

/** Peer addresses as uWS gives them -> as clientIp answers; a few clients send most requests. */
const knownIps = new Map<string, string>();
const MAX_KNOWN_IPS = 4096;

/** The peer's address; an IPv4 peer on the dual-stack socket as dotted IPv4 rather than `::ffff:` hex. */
export function clientIp(text: ArrayBuffer): string {
  const address = Buffer.from(text).toString('latin1');
  let ip = knownIps.get(address);
  if (ip === undefined) {
    if (knownIps.size >= MAX_KNOWN_IPS) knownIps.clear();
    knownIps.set(address, (ip = readableIp(address)));
  }
  return ip;
}

function readableIp(address: string): string {
  const mapped = IPV4_MAPPED.exec(address);
  if (!mapped) return address;
  const high = parseInt(mapped[1]!, 16);
  const low = parseInt(mapped[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}
