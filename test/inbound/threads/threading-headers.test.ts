/**
 * The threading headers of a reply to a received message: only message IDs the send path accepts
 * are carried over, and References stays within its bound, so a reply is never refused for what
 * a stranger's mail put in its own headers.
 */
import test from 'ava';
import { checkHeaders } from '../../../src/emails/headers.js';
import type { MessageRow } from '../../../src/inbound/store.js';
import { threadingHeaders } from '../../../src/inbound/service.js';

const parent = (fields: { id: string | null; references?: string[]; inReplyTo?: string | null }) =>
  ({
    message_id_header: fields.id,
    references: JSON.stringify(fields.references ?? []),
    in_reply_to: fields.inReplyTo ?? null,
  }) as unknown as MessageRow;

test('a reply threads under the received message and its ancestry', (t) => {
  const headers = threadingHeaders(
    parent({ id: 'q-2@sender.example', references: ['q-0@a.example', 'q-1@a.example'] }),
  );
  t.deepEqual(headers, {
    'In-Reply-To': '<q-2@sender.example>',
    References: '<q-0@a.example> <q-1@a.example> <q-2@sender.example>',
  });
  t.deepEqual(checkHeaders(headers), []);
});

test('IDs the send path would refuse are left out, and a parent with such an ID gets no threading headers', (t) => {
  const long = `${'x'.repeat(950)}@a.example`;
  const headers = threadingHeaders(
    parent({ id: 'ok@sender.example', references: ['grüße@a.example', long, 'fine@a.example'] }),
  );
  t.deepEqual(headers, {
    'In-Reply-To': '<ok@sender.example>',
    References: '<fine@a.example> <ok@sender.example>',
  });
  t.deepEqual(checkHeaders(headers), []);
  t.deepEqual(threadingHeaders(parent({ id: 'grüße@sender.example' })), {});
  t.deepEqual(threadingHeaders(parent({ id: long })), {});
});

test('a long ancestry keeps its newest IDs within the bound of References', (t) => {
  const ids = Array.from(
    { length: 19 },
    (_, i) => `${String(i).padStart(2, '0')}${'y'.repeat(400)}@a.example`,
  );
  const headers = threadingHeaders(parent({ id: 'last@sender.example', references: ids }));
  t.deepEqual(checkHeaders(headers), []);
  const kept = (headers.References ?? '').split(' ');
  t.is(kept.at(-1), '<last@sender.example>');
  t.is(kept.at(-2), `<${ids.at(-1)}>`, 'the newest ancestor is kept');
  t.false(kept.includes(`<${ids[0]}>`), 'the oldest ancestors go first');
});
