/**
 * Preloaded (`node --import`) into CLI processes a test starts together, so that they race for the
 * master key file at the same moment rather than a process start-up apart: each one stops at its
 * first 32-byte `randomBytes` (the new key, drawn once the key file was found missing) until every
 * one of `KEY_RACE_PARTIES` processes is there (or 15 s have passed). Rendezvous through files in
 * `KEY_RACE_DIR`. It changes nothing else.
 */
import crypto from 'node:crypto';
import { readdirSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';

const dir = process.env.KEY_RACE_DIR;
const parties = Number(process.env.KEY_RACE_PARTIES);

function rendezvous(dir: string): void {
  writeFileSync(path.join(dir, String(process.pid)), '');
  const nap = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + 15_000;
  while (readdirSync(dir).length < parties && Date.now() < deadline) Atomics.wait(nap, 0, 0, 5);
}

if (dir !== undefined) {
  const real = crypto.randomBytes;
  let arrived = false;
  crypto.randomBytes = ((size: number, ...rest: []) => {
    if (size === 32 && !arrived) {
      arrived = true;
      rendezvous(dir);
    }
    return real(size, ...rest);
  }) as typeof crypto.randomBytes;
  // ESM named imports of built-in modules see the change only after this.
  syncBuiltinESMExports();
}
