import { randomBytes } from 'node:crypto';
import test from 'ava';
import { parseVerp, verpAddress, verpKey } from '../../src/delivery/verp.js';
import { newId } from '../../src/platform/ids.js';

const key = verpKey(randomBytes(32));

test('a VERP address names the recipient it was made for and fits in a local part', (t) => {
  const id = newId('rcp');
  const address = verpAddress(key, { kind: 'recipient', id }, 'bounces.example.com');
  const local = address.split('@')[0] as string;
  t.true(local.length <= 64, 'RFC 5321 §4.5.3.1.1 limits a local part to 64 octets');
  t.regex(address, /^b\+r[0-9a-z]{26}-[0-9a-z]{10}@bounces\.example\.com$/);
  t.deepEqual(parseVerp(key, address), { kind: 'recipient', id, domain: 'bounces.example.com' });
});

test('a VERP address for a several-recipient transaction names the job', (t) => {
  const id = newId('job');
  const address = verpAddress(key, { kind: 'job', id }, 'bounces.example.com');
  t.deepEqual(parseVerp(key, address), { kind: 'job', id, domain: 'bounces.example.com' });
});

test('a VERP address survives a server that upper-cases it', (t) => {
  const id = newId('rcp');
  const address = verpAddress(key, { kind: 'recipient', id }, 'bounces.example.com');
  t.is(parseVerp(key, address.toUpperCase())?.id, id);
});

test('a forged or foreign VERP address is refused', (t) => {
  const address = verpAddress(key, { kind: 'recipient', id: newId('rcp') }, 'bounces.example.com');
  const other = verpAddress(
    verpKey(randomBytes(32)),
    { kind: 'recipient', id: newId('rcp') },
    'b.example.com',
  );
  t.is(parseVerp(key, other), null, 'made with another master key');
  t.is(
    parseVerp(
      key,
      address.replace(/-([0-9a-z])/, (_m, c: string) => `-${c === 'a' ? 'b' : 'a'}`),
    ),
    null,
  );
  t.is(parseVerp(key, 'postmaster@bounces.example.com'), null);
  t.is(parseVerp(key, 'not an address'), null);
});
