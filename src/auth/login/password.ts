/**
 * Password hashing with argon2id (the `argon2` package, prebuilt binaries from the npm registry),
 * at OWASP's first recommended setting: 19 MiB of memory, 2 passes, 1 lane (about 50 ms here).
 * Hashes are PHC strings, so a later change of parameters still verifies older hashes.
 */
import argon2 from 'argon2';

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;

const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, OPTIONS);
}

let dummy: Promise<string> | undefined;

/**
 * Whether `password` matches `hash`. Without a hash (no such user, or no password set) it still
 * verifies against a throwaway hash, so the answer takes as long whether the user exists or not.
 */
export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  if (hash === null) {
    dummy ??= hashPassword('not a password anyone has');
    await argon2.verify(await dummy, password).catch(() => false);
    return false;
  }
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}
