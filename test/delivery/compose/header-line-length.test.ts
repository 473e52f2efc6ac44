import test from 'ava';
import { simpleParser } from 'mailparser';
import {
  type ComposeFields,
  composeMessage,
  splitHeaderBody,
} from '../../../src/delivery/compose/compose.js';
const MAX_DISPLAY_NAME = 256;
import { canonicalHeaders } from '../../../src/emails/headers.js';
const MAX_HEADER_TOKEN = 900;
const MAX_HEADER_VALUE = 4000;
import { sendRequest } from '../../../src/emails/schemas.js';

// RFC 5322 §2.1.1: each line of a message MUST be at most 998 characters, excluding the CRLF.
const MAX_LINE = 998;
const MAX_SUBJECT = 998;

/** A small seeded generator, so a failure names a case that can be run again. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

const ascii = (n: number, from = 'abcdefghijklmnopqrstuvwxyz0123456789!#$%&*+-/=?^_`{|}~.') =>
  Array.from({ length: n }, (_, i) => from[i % from.length]).join('');

/** Subjects of the maximal accepted length: runs of letters, specials or non-ASCII, blanks between. */
function subjects(): Array<[string, string]> {
  const fixed: Array<[string, string]> = [
    ['one ASCII word', 'y'.repeat(MAX_SUBJECT)],
    ['one ASCII word of specials', ascii(MAX_SUBJECT)],
    ['76 blanks then one word', `${' '.repeat(76)}${'y'.repeat(MAX_SUBJECT - 76)}`],
    ['a tab in the middle', `${'y'.repeat(499)}\t${'y'.repeat(498)}`],
    ['words with spaces', 'word '.repeat(MAX_SUBJECT / 5 + 1).slice(0, MAX_SUBJECT)],
    ['non-ASCII', 'ü'.repeat(MAX_SUBJECT)],
    ['CJK', '漢'.repeat(MAX_SUBJECT)],
    ['emoji', '😀'.repeat(MAX_SUBJECT / 2)],
    ['a quote in a long word', `"${'y'.repeat(MAX_SUBJECT - 1)}`],
    ['an encoded-word lookalike', `=?UTF-8?Q?${'y'.repeat(MAX_SUBJECT - 12)}?=`],
    ['ASCII word then non-ASCII', `${'y'.repeat(MAX_SUBJECT - 2)} ü`],
  ];
  const next = random(5322);
  const pieces = [' ', '  ', '\t', 'y', 'ü', '"', '漢', '='];
  for (let seed = 0; seed < 40; seed++) {
    let subject = '';
    while (subject.length < MAX_SUBJECT) {
      const run = Math.floor(next() ** 4 * MAX_SUBJECT) + 1;
      const piece = pieces[Math.floor(next() * pieces.length)] ?? 'y';
      subject += next() < 0.7 ? 'y'.repeat(run) : piece.repeat(Math.ceil(run / 50));
    }
    fixed.push([`random ${seed}`, subject.slice(0, MAX_SUBJECT).replace(/^\s+$/, 'y')]);
  }
  return fixed;
}

/** A message ID and a URI with `n` characters between the angle brackets. */
const id = (n: number, letter = 'a') => `<${letter.repeat(n - '@acme.test'.length)}@acme.test>`;
const uri = (n: number) => `<https://acme.test/u?t=${'b'.repeat(n - 'https://acme.test/u?t='.length)}>`;

/** Custom headers at their limits: the longest IDs and URIs, the longest values, odd separators. */
const headerSets: Array<[string, Record<string, string>]> = [
  [
    'the longest IDs and URI',
    {
      'In-Reply-To': id(MAX_HEADER_TOKEN),
      References: id(MAX_HEADER_TOKEN),
      'List-Unsubscribe': uri(MAX_HEADER_TOKEN),
    },
  ],
  [
    'the longest values',
    {
      References: Array.from({ length: 4 }, (_, i) => id(MAX_HEADER_TOKEN, 'abcd'[i])).join('\t \t'),
      'List-Unsubscribe': [
        uri(MAX_HEADER_TOKEN),
        uri(MAX_HEADER_TOKEN),
        uri(MAX_HEADER_TOKEN),
        `<mailto:${'u'.repeat(50)}@acme.test>`,
      ].join(','),
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  ],
  [
    'URIs with blank runs around the commas',
    {
      'List-Unsubscribe': `${uri(MAX_HEADER_TOKEN)}${' '.repeat(900)},${' '.repeat(900)}${uri(MAX_HEADER_TOKEN)}`,
    },
  ],
  [
    'many short IDs',
    {
      References: Array.from({ length: 200 }, (_, i) => `<m${i}@acme.test>`)
        .join(' ')
        .slice(0, MAX_HEADER_VALUE)
        .replace(/\s\S*$/, ''),
    },
  ],
];

const name = (kind: string) =>
  ({
    letters: 'A'.repeat(MAX_DISPLAY_NAME),
    quotes: `"${'\\"'.repeat(MAX_DISPLAY_NAME)}"`,
    backslashes: `"${'\\\\'.repeat(MAX_DISPLAY_NAME)}"`,
    specials: `"${ascii(MAX_DISPLAY_NAME, 'a.b,c;d:e@f')}"`,
    dots: ascii(MAX_DISPLAY_NAME, 'a.'),
    'non-ASCII': 'Ä'.repeat(MAX_DISPLAY_NAME),
  })[kind] ?? '';
const names = ['letters', 'quotes', 'backslashes', 'specials', 'dots', 'non-ASCII'];

/** Longest line of the header section, in octets. */
function longestHeaderLine(message: Buffer): { length: number; line: string } {
  let longest = { length: 0, line: '' };
  const { header } = splitHeaderBody(message);
  for (const line of header.toString('latin1').split('\r\n')) {
    if (line.length > longest.length) longest = { length: line.length, line: `${line.slice(0, 60)}...` };
  }
  return longest;
}

function compose(body: Record<string, unknown>) {
  const parsed = sendRequest.safeParse(body);
  if (!parsed.success) throw new Error(`the API refused the case: ${parsed.error.message}`);
  const request = parsed.data;
  const fields: ComposeFields = {
    from: request.from.display,
    to: request.to.map((m) => m.display),
    cc: (request.cc ?? []).map((m) => m.display),
    replyTo: (request.reply_to ?? []).map((m) => m.display),
    subject: request.subject ?? '',
    html: null,
    text: 'Hello',
    headers: canonicalHeaders(request.headers),
    messageId: '<msg_01J00000000000000000000000@acme.test>',
    date: 1_700_000_000_000,
  };
  return composeMessage(fields).message;
}

const cases = subjects().map(([title, subject], i) => ({
  title,
  subject,
  kind: names[i % names.length] ?? 'letters',
  headers: headerSets[i % headerSets.length]?.[1] ?? {},
}));

test('every header line of a message with the longest accepted subject, names and headers is at most 998 octets', async (t) => {
  // mailparser collapses runs of white space when it unfolds; the words must come back as sent.
  const words = (text: string | undefined) => text?.replace(/\s+/g, ' ').trim();
  for (const { title, subject, kind, headers } of cases) {
    const mailbox = (local: string) => `${name(kind)} <${local}@acme.test>`;
    const message = compose({
      from: mailbox('hello'),
      to: Array.from({ length: 100 }, (_, i) => mailbox(`to${i}`)),
      cc: [mailbox('cc')],
      reply_to: [mailbox('reply')],
      subject,
      text: 'Hello',
      headers,
    });
    const longest = longestHeaderLine(message);
    t.true(
      longest.length <= MAX_LINE,
      `subject ${title}, names ${kind}: ${longest.length} octets: ${longest.line}`,
    );
    const parsed = await simpleParser(message);
    t.is(words(parsed.subject), words(subject), `subject ${title} reads back as sent`);
  }
});

test('custom headers at their limits compose to lines of at most 998 octets', (t) => {
  for (const [title, headers] of headerSets) {
    const message = compose({
      from: 'hello@acme.test',
      to: ['b@example.test'],
      subject: 'Hi',
      text: 'Hello',
      headers,
    });
    const longest = longestHeaderLine(message);
    t.true(longest.length <= MAX_LINE, `${title}: ${longest.length} octets: ${longest.line}`);
  }
});

test('a subject longer than the API allows (from a template variable) still composes to short lines', async (t) => {
  const subject = `Your code ${'7'.repeat(5000)}`;
  const { message } = composeMessage({
    from: 'hello@acme.test',
    to: ['b@example.test'],
    cc: [],
    replyTo: [],
    subject,
    html: null,
    text: 'Hello',
    headers: {},
    messageId: '<msg_01J00000000000000000000000@acme.test>',
    date: 1_700_000_000_000,
  });
  const longest = longestHeaderLine(message);
  t.true(longest.length <= MAX_LINE, `${longest.length} octets: ${longest.line}`);
  t.is((await simpleParser(message)).subject, subject);
});
