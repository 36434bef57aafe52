// The caller's address as status changes record it (docs/history.md), from the peer address
// uWS gives in binary: 4 bytes for IPv4, 16 for IPv6 (an IPv4 peer on the dual-stack socket
// is IPv4-mapped, ::ffff:a.b.c.d). uWS's text form cost 1.7 times as much per read
// (formatted, copied into a new buffer, decoded; `npm run bench:address`), and every status
// change reads it.

/** IPv4 addresses by their 32-bit number -> dotted text; a few clients send most requests. */
const knownIps = new Map<number, string>();
const MAX_KNOWN_IPS = 4096;

/** Two hex digits per byte value. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** The peer's address: an IPv4 one (mapped or not) dotted, any other IPv6 one as eight groups of four hex digits. */
export function clientIp(address: ArrayBuffer): string {
  const bytes = new Uint8Array(address);
  if (bytes.length === 4) return ipv4(bytes, 0);
  if (bytes.length !== 16) return '';
  if (isIpv4Mapped(bytes)) return ipv4(bytes, 12);
  let text = '';
  for (let i = 0; i < 16; i += 2) text += `${i === 0 ? '' : ':'}${HEX[bytes[i]!]}${HEX[bytes[i + 1]!]}`;
  return text;
}

/** ::ffff:a.b.c.d: ten zero bytes, then two of 0xff. */
function isIpv4Mapped(bytes: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

function ipv4(bytes: Uint8Array, at: number): string {
  const number = ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
  let ip = knownIps.get(number);
  if (ip === undefined) {
    if (knownIps.size >= MAX_KNOWN_IPS) knownIps.clear();
    knownIps.set(number, (ip = `${bytes[at]}.${bytes[at + 1]}.${bytes[at + 2]}.${bytes[at + 3]}`));
  }
  return ip;
}
