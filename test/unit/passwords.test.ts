import { describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/domain/passwords.js';
import { checkPasswordHash as checkHash } from '../support/passwords.js';

// Account passwords are stored as salted scrypt hashes (src/domain/passwords.ts).

describe('hashPassword', () => {
  it('is scrypt of the password with a salt, in the form scrypt$N$r$p$salt$hash, never the password itself', async () => {
    const stored = await hashPassword('s3cret pass');
    expect(stored).not.toContain('s3cret');
    const { parts, matches } = checkHash(stored, 's3cret pass');
    expect(parts.slice(0, 4)).toEqual(['scrypt', '16384', '8', '1']);
    expect(Buffer.from(parts[4]!, 'base64')).toHaveLength(16);
    expect(Buffer.from(parts[5]!, 'base64')).toHaveLength(64);
    expect(matches).toBe(true);
    expect(checkHash(stored, 's3cret pasS').matches).toBe(false);
  });

  it('salts every hash anew: the same password twice gives two hashes', async () => {
    const [a, b] = [await hashPassword('same'), await hashPassword('same')];
    expect(a).not.toBe(b);
    expect(checkHash(a, 'same').matches && checkHash(b, 'same').matches).toBe(true);
  });

  it('hashes the NFC form, so a composed and a decomposed é are one password', async () => {
    expect(checkHash(await hashPassword('caf\u00e9'), 'cafe\u0301').matches).toBe(true);
  });
});
