import { randomBytes } from 'node:crypto';
import test from 'ava';
import { parseVerp, verpAddress, verpKey } from '../../../src/delivery/smtp/verp.js';
import { newId } from '../../../src/platform/ids.js';

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

test('VERP tags stay the same across versions, so bounces to addresses sent before an upgrade still verify', (t) => {
  // Made with createHmac by the code that first sent them; HMAC-SHA256 of RFC 2104.
  const fixed = verpKey(Buffer.alloc(32, 7));
  const recipient = 'rcp_01JD3Q8Z9V6W1R2T3Y4V5X6Z7P';
  const job = 'job_01JD3Q8Z9V6W1R2T3Y4V5X6Z7Q';
  t.is(
    verpAddress(fixed, { kind: 'recipient', id: recipient }, 'Bounces.Example.com'),
    'b+r01jd3q8z9v6w1r2t3y4v5x6z7p-549bsww8zp@bounces.example.com',
  );
  t.is(
    verpAddress(fixed, { kind: 'job', id: job }, 'bounces.example.com'),
    'b+j01jd3q8z9v6w1r2t3y4v5x6z7q-10srcpqkv2@bounces.example.com',
  );
  t.is(parseVerp(fixed, 'b+r01jd3q8z9v6w1r2t3y4v5x6z7p-549bsww8zp@bounces.example.com')?.id, recipient);
  t.is(parseVerp(fixed, 'B+J01JD3Q8Z9V6W1R2T3Y4V5X6Z7Q-10SRCPQKV2@bounces.example.com')?.id, job);
});
