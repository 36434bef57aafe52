import { randomBytes, scrypt } from 'node:crypto';

// Account passwords, kept only as salted scrypt hashes (docs/seatsio-behaviour.md, "Accounts
// and settings"), never as given. A stored hash names its parameters, so new hashes may use
// others while a check can still read the old ones:
//   scrypt$<N>$<r>$<p>$<salt, base64>$<hash, base64>
// The password is hashed in Unicode NFC, so the same text typed either way matches.

const COST = { N: 16_384, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const HASH_BYTES = 64;
/** scrypt's memory bound: it needs 128 * N * r bytes (16 MiB at COST). */
const MAX_MEMORY = 32 * 1024 * 1024;

/** A new hash of `password`, with a random salt of its own; computed off the event loop. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await new Promise<Buffer>((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, HASH_BYTES, { ...COST, maxmem: MAX_MEMORY }, (error, key) => (error ? reject(error) : resolve(key)));
  });
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), hash.toString('base64')].join('$');
}
