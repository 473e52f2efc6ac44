import { randomBytes } from 'node:crypto';
import test from 'ava';
import { clickToken, openToken, readToken, trackingTokenKey } from '../../src/tracking/token.js';

const key = trackingTokenKey(randomBytes(32));
const MESSAGE = 'msg_01JD3Q8Z9V6W1R2T3Y4U5X6Y7Z';

test('a token reads back as what was written, and only as its own kind', (t) => {
  const open = openToken(key, MESSAGE);
  t.deepEqual(readToken(key, open, 'open'), { kind: 'open', messageId: MESSAGE });
  t.is(readToken(key, open, 'click'), undefined);
  const click = clickToken(key, MESSAGE, { index: 2, count: 5, url: 'https://acme.test/ünï?q=1' });
  t.deepEqual(readToken(key, click, 'click'), {
    kind: 'click',
    messageId: MESSAGE,
    index: 2,
    count: 5,
    url: 'https://acme.test/ünï?q=1',
  });
  t.is(readToken(key, click, 'open'), undefined);
});

test('an altered, truncated, extended or foreign token is refused', (t) => {
  const click = clickToken(key, MESSAGE, { index: 0, count: 1, url: 'https://acme.test/' });
  const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
  for (let i = 0; i < click.length; i++)
    t.is(readToken(key, flip(click, i), 'click'), undefined, `position ${i}`);
  for (let n = 1; n < click.length; n++) t.is(readToken(key, click.slice(0, n), 'click'), undefined);
  t.is(readToken(key, `${click}A`, 'click'), undefined);
  const foreign = clickToken(trackingTokenKey(randomBytes(32)), MESSAGE, {
    index: 0,
    count: 1,
    url: 'https://evil.test/',
  });
  t.is(readToken(key, foreign, 'click'), undefined);
  t.is(readToken(key, 'not a token!', 'click'), undefined);
});

test('a token made with a copy of the key (a render worker gets one per message) reads back with the original', (t) => {
  const copy = Uint8Array.from(key);
  const open = openToken(copy, MESSAGE);
  t.deepEqual(readToken(key, open, 'open'), { kind: 'open', messageId: MESSAGE });
  t.deepEqual(readToken(Uint8Array.from(key), open, 'open'), { kind: 'open', messageId: MESSAGE });
  t.is(readToken(Uint8Array.from(randomBytes(32)), open, 'open'), undefined);
});
