import test from 'ava';
import { encode as base64, wrap } from 'nodemailer/lib/base64';
import MailComposer from 'nodemailer/lib/mail-composer';
import { writeTree } from '../../../src/delivery/compose/mime-layout.js';

type Encoding = '7bit' | 'quoted-printable' | 'base64';

/** What MimeNode's own encoders write for `token` (an alphanumeric token is its own QP and 7bit). */
function encoded(token: string, encoding: Encoding): Buffer {
  return Buffer.from(encoding === 'base64' ? wrap(base64(Buffer.from(token)), 76) : token, 'latin1');
}

const headerSets: Record<string, string>[] = [
  {},
  {
    'List-Unsubscribe': '<https://acme.test/u/1>, <mailto:u@acme.test>',
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  },
  { 'In-Reply-To': '<a@acme.test>', References: '<a@acme.test> <b@acme.test>' },
];
const parts: { html: Encoding | null; text: Encoding | null }[] = [
  { html: 'quoted-printable', text: null },
  { html: '7bit', text: null },
  { html: 'base64', text: null },
  { html: null, text: '7bit' },
  { html: null, text: 'quoted-printable' },
  { html: 'quoted-printable', text: 'quoted-printable' },
  { html: 'base64', text: 'base64' },
  { html: 'quoted-printable', text: '7bit' },
  { html: null, text: null },
];

let n = 0;
for (const shape of parts) {
  for (const headers of headerSets) {
    n += 1;
    const id = n;
    test(`a compiled tree is written as MimeNode's build() streams it (${shape.html ?? '-'} html, ${shape.text ?? '-'} text, header set ${headerSets.indexOf(headers)})`, async (t) => {
      const tokens = new Map<string, { bytes: Buffer; foldsWhitespace: boolean }>();
      const part = (name: string, encoding: Encoding | null) => {
        if (encoding === null) return undefined;
        const token = `posthorn${name}${id}token`;
        tokens.set(token, { bytes: encoded(token, encoding), foldsWhitespace: false });
        return { content: token, contentTransferEncoding: encoding };
      };
      const options = {
        from: id % 2 ? 'Åsa Müller <hello@acme.test>' : 'hello@acme.test',
        to: ['Jöns <jons@example.test>', 'b@example.test'],
        cc: id % 3 ? ['c@example.test'] : undefined,
        replyTo: id % 4 ? ['support@acme.test'] : undefined,
        subject: id % 2 ? `Ihre Bestellung – ${'sehr lang '.repeat(12)}` : 'Order',
        html: part('html', shape.html),
        text: part('text', shape.text),
        headers,
        messageId: `<msg_${id}@acme.test>`,
        date: new Date(1_700_000_000_000),
        envelope: { from: '', to: [] },
        baseBoundary: 'b0undary',
      } as ConstructorParameters<typeof MailComposer>[0];
      const streamed = await new MailComposer(options).compile().build();
      const { message, foldsWhitespace } = writeTree(new MailComposer(options).compile(), tokens, 64);
      t.is(message.toString('latin1'), streamed.toString('latin1'));
      t.is(message.byteOffset, 64, 'the free room is in front of the message');
      t.false(foldsWhitespace, 'no part header or boundary has white space to fold');
    });
  }
}

test('a tree with content it was not given bytes for is refused', (t) => {
  const tree = new MailComposer({ from: 'a@acme.test', to: 'b@example.test', html: 'inline html' }).compile();
  t.throws(() => writeTree(tree, new Map(), 0), { message: /no encoded content/ });
});

test('white space to fold in a part is reported, and never that of the top header block', (t) => {
  const tree = () =>
    new MailComposer({
      from: 'a@acme.test',
      to: 'b@example.test',
      subject: 'Double  spaced  subject',
      html: { content: 'html-part', contentTransferEncoding: 'quoted-printable' },
      text: { content: 'text-part', contentTransferEncoding: '7bit' },
    } as ConstructorParameters<typeof MailComposer>[0]).compile();
  const contents = (folds: boolean) =>
    new Map([
      ['html-part', { bytes: Buffer.from('html'), foldsWhitespace: false }],
      ['text-part', { bytes: Buffer.from('text'), foldsWhitespace: folds }],
    ]);
  t.false(writeTree(tree(), contents(false), 0).foldsWhitespace);
  t.true(writeTree(tree(), contents(true), 0).foldsWhitespace);
});
