import { randomBytes } from 'node:crypto';
import test from 'ava';
import { seal, unseal } from '../../src/platform/crypto.js';

/** The sealed value with its authentication tag cut to `bytes` bytes. */
function withTag(sealed: string, bytes: number): string {
  const [version, iv, tag, body] = sealed.split('.');
  const short = Buffer.from(tag as string, 'base64url')
    .subarray(0, bytes)
    .toString('base64url');
  return [version, iv, short, body].join('.');
}

test('a sealed value opens only whole: a truncated authentication tag is refused', (t) => {
  const key = randomBytes(32);
  const sealed = seal(key, 'secret', 'dkim:dom_1');
  t.is(unseal(key, sealed, 'dkim:dom_1'), 'secret');
  for (const bytes of [4, 8, 12, 15]) {
    t.throws(
      () => unseal(key, withTag(sealed, bytes), 'dkim:dom_1'),
      { message: /truncated/ },
      `${bytes} bytes`,
    );
  }
  t.throws(() => unseal(key, withTag(sealed, 0), 'dkim:dom_1'), { message: /unknown format/ });
  t.throws(() => unseal(key, sealed, 'dkim:dom_2'));
  t.throws(() => unseal(randomBytes(32), sealed, 'dkim:dom_1'));
});
