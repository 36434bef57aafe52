import { scryptSync } from 'node:crypto';

/**
 * The parts of a stored password hash (src/domain/passwords.ts: scrypt$N$r$p$salt$hash), and
 * whether scrypt of `password` with its salt and parameters, computed here on its own, gives
 * its hash.
 */
export function checkPasswordHash(stored: string, password: string): { parts: string[]; matches: boolean } {
  const parts = stored.split('$');
  const [, n, r, p, salt, hash] = parts;
  const expected = Buffer.from(hash ?? '', 'base64');
  const actual = scryptSync(password.normalize('NFC'), Buffer.from(salt ?? '', 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return { parts, matches: expected.length > 0 && actual.equals(expected) };
}
