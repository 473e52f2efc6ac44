import test from 'ava';
import { simpleParser } from 'mailparser';
import {
  composeMessage,
  SIGNATURE_HEADROOM,
  splitHeaderBody,
} from '../../../src/delivery/compose/compose.js';
import {
  encodeQuotedPrintable,
  isPlain,
  latinLettersExceed,
  maxEncodedLength,
  type TextScan,
} from '../../../src/delivery/compose/quoted-printable.js';
import { relaxedBodyHash } from '../../../src/delivery/compose/relaxed-body.js';

const qp = (text: string) => encodeQuotedPrintable(Buffer.from(text, 'utf8')).toString('latin1');

/** An independent decoder (RFC 2045 §6.7): drop soft breaks, turn =XX into its byte. */
function decode(encoded: string): Buffer {
  const joined = encoded.replace(/=\r\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    if (joined[i] === '=') {
      bytes.push(Number.parseInt(joined.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(joined.charCodeAt(i));
  }
  return Buffer.from(bytes);
}

/** A small deterministic generator, so a failure can be replayed. */
function generator(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
}

const PIECES = [
  'a',
  'Z',
  ' ',
  '\t',
  '=',
  '.',
  'é',
  '—',
  '😀',
  '\n',
  '\r\n',
  '\r',
  'x'.repeat(80),
  'ü'.repeat(30),
  ' \n',
  '\u0000',
  'Привет',
];

function randomText(next: (n: number) => number, pieces: number): string {
  let text = '';
  for (let i = 1 + next(pieces); i > 0; i--) text += PIECES[next(PIECES.length)];
  return text;
}

test('bytes that cannot stand for themselves are written =XX, UTF-8 included', (t) => {
  t.is(qp('Grüße'), 'Gr=C3=BC=C3=9Fe');
  t.is(qp('a=b'), 'a=3Db');
  t.is(qp('tab\there'), 'tab\there');
  t.is(qp('nul\u0000'), 'nul=00');
});

test('every line break becomes CRLF, and white space that ends a line is encoded', (t) => {
  t.is(qp('a\nb\rc\r\nd'), 'a\r\nb\r\nc\r\nd');
  t.is(qp('trailing \nspace'), 'trailing=20\r\nspace');
  t.is(qp('tab\t'), 'tab=09');
  t.is(qp('\n\n'), '\r\n\r\n');
});

test('lines are at most 76 characters: soft breaks never split a triplet or a character', (t) => {
  t.is(qp('x'.repeat(76)), 'x'.repeat(76));
  t.is(qp('x'.repeat(77)), `${'x'.repeat(75)}=\r\nxx`);
  const accents = qp(`${'x'.repeat(73)}é`);
  t.is(accents, `${'x'.repeat(73)}=\r\n=C3=A9`);
  const emoji = qp(`${'x'.repeat(70)}😀y`);
  t.is(emoji, `${'x'.repeat(70)}=\r\n=F0=9F=98=80y`);
});

test('random texts decode to their bytes with CRLF line breaks, within the line limit', (t) => {
  const next = generator(20261123);
  for (let round = 0; round < 2000; round++) {
    const text = randomText(next, round % 100 === 0 ? 2000 : 60);
    const encoded = qp(text);
    const lines = encoded.split('\r\n');
    t.true(
      lines.every((line) => line.length <= 76 && !/[ \t]$/.test(line)),
      JSON.stringify(text),
    );
    t.false(/[^\r]\n|\r[^\n]|^\n|\r$/.test(encoded), 'no bare CR or LF');
    t.deepEqual(
      decode(encoded),
      Buffer.from(text.replace(/\r\n|\r|\n/g, '\r\n'), 'utf8'),
      JSON.stringify(text),
    );
  }
});

/** The encoder's scan of `text`, as the transfer-encoding choice reads it. */
function scanOf(text: string): TextScan & { plain: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  const scan = { other: -1, longestLine: -1, foldsWhitespace: true };
  encodeQuotedPrintable(bytes, undefined, scan);
  return { ...scan, plain: isPlain(bytes, scan) };
}

test('the transfer encoding is chosen by nodemailer’s rules: 7bit for short ASCII lines', (t) => {
  t.true(scanOf('Hello\r\nworld').plain);
  t.true(scanOf(`${'x'.repeat(76)}\n${'y'.repeat(76)}`).plain);
  t.false(scanOf('x'.repeat(77)).plain);
  t.false(scanOf(`short\r\n${'x'.repeat(77)}\r\nshort`).plain);
  t.false(scanOf('Grüße').plain);
  t.false(scanOf('bell\u0007').plain);
  t.true(scanOf('a = b, tab\there, trailing \n').plain, 'nodemailer sends = and white space as 7bit');
  t.false(scanOf(`${'x'.repeat(200 * 1024)}`).plain, 'past 128 KB long lines are assumed');
});

test('characters are counted as nodemailer counts them: a 4-byte character is two', (t) => {
  t.like(scanOf('Ab😀é'), { other: 3, longestLine: 8 });
  t.like(scanOf('ab\r\n\u0000\u0001\t'), { other: 2, longestLine: 3 });
  t.true(latinLettersExceed([Buffer.from('Ab😀é')], 1));
  t.false(latinLettersExceed([Buffer.from('Ab😀é')], 2));
  t.true(latinLettersExceed([Buffer.from('日本'), Buffer.from('abc')], 2), 'letters of every part count');
});

test('the scan of random texts matches a count made byte by byte, and a search of the output for white space to fold', (t) => {
  const next = generator(99);
  for (let round = 0; round < 500; round++) {
    const bytes = Buffer.from(randomText(next, 80), 'utf8');
    let other = 0;
    let longest = 0;
    let column = 0;
    for (const byte of bytes) {
      if (byte >= 0xf0) other += 2;
      else if (byte >= 0xc0 || (byte < 0x20 && byte !== 0x09 && byte !== 0x0d && byte !== 0x0a)) other += 1;
      column = byte === 0x0d || byte === 0x0a ? 0 : column + 1;
      longest = Math.max(longest, column);
    }
    const scan = { other: 0, longestLine: 0, foldsWhitespace: true };
    const encoded = encodeQuotedPrintable(bytes, undefined, scan);
    const folds = /\t| {2}| \r\n| $/.test(encoded.toString('latin1'));
    t.deepEqual(scan, { other, longestLine: longest, foldsWhitespace: folds });
  }
});

test('composed messages carry the bodies exactly, in quoted-printable, 7bit or base64', async (t) => {
  const next = generator(7);
  const encodings = new Set<string>();
  for (let round = 0; round < 300; round++) {
    const html = next(5) === 0 ? null : randomText(next, round % 50 === 0 ? 1500 : 40);
    const text = html === null || next(2) === 0 ? randomText(next, 40) : null;
    const { message: raw, foldsWhitespace } = composeMessage({
      from: 'Acme <hello@acme.test>',
      to: ['user@example.test'],
      cc: [],
      replyTo: [],
      subject: 'Order',
      html,
      text,
      headers: {},
      messageId: '<msg_1@acme.test>',
      date: 0,
    });
    const wire = raw.toString('latin1');
    const body = splitHeaderBody(raw).body;
    t.is(
      relaxedBodyHash(body, { crlfOnly: true, foldsWhitespace }),
      relaxedBodyHash(body),
      'what the composer vouches for about the body gives the same DKIM body hash',
    );
    for (const m of wire.matchAll(/Content-Transfer-Encoding: (\S+)/g)) encodings.add(m[1] as string);
    t.false(/[^\r]\n|\r[^\n]/.test(wire), 'no bare CR or LF on the wire');
    const parsed = await simpleParser(raw);
    const expected = (body: string | null) => (body === null ? '' : body.replace(/\r\n|\r/g, '\n'));
    const got = (body: string | false | undefined) => (typeof body === 'string' ? body : '');
    const context = JSON.stringify({ html, text });
    // A single-part message ends with a line break (MailComposer adds one when the body has none).
    const same = (actual: string, wanted: string) =>
      actual === wanted || (!wanted.endsWith('\n') && actual === `${wanted}\n`);
    if (html !== null) t.true(same(got(parsed.html), expected(html)), context);
    if (text !== null) t.true(same(got(parsed.text), expected(text)), context);
  }
  t.deepEqual([...encodings].sort(), ['7bit', 'base64', 'quoted-printable']);
});

test('encoding into a reused buffer gives the same bytes as a fresh one, and refuses a buffer too small', (t) => {
  const scratch = Buffer.alloc(maxEncodedLength(4000), 0x41);
  const next = generator(11);
  for (let round = 0; round < 50; round++) {
    const input = Buffer.from(randomText(next, 1 + next(60)), 'utf8').subarray(0, 1000);
    t.deepEqual(encodeQuotedPrintable(input, scratch), encodeQuotedPrintable(input));
  }
  t.throws(() => encodeQuotedPrintable(Buffer.from('Grüße'), Buffer.alloc(4)), { instanceOf: RangeError });
});

test('a composed message has free room in front for its signature lines, in a given buffer when it fits', (t) => {
  const fields = {
    from: 'Acme <hello@acme.test>',
    to: ['user@example.test'],
    cc: [],
    replyTo: [],
    subject: 'Order',
    headers: {},
    messageId: '<msg_1@acme.test>',
    date: 0,
  };
  for (const body of ['Grüße aus Köln '.repeat(200), 'plain ASCII', '日本語のメール'.repeat(50)]) {
    const { message: alone } = composeMessage({ ...fields, html: body, text: body });
    t.is(alone.byteOffset, SIGNATURE_HEADROOM);
    t.is(alone.buffer.byteLength, SIGNATURE_HEADROOM + alone.length, 'a buffer of its own, exactly');
    const slot = Buffer.alloc(64 * 1024);
    const { message: placed } = composeMessage({ ...fields, html: body, text: body }, slot);
    t.is(placed.buffer, slot.buffer);
    t.is(placed.byteOffset, SIGNATURE_HEADROOM);
    t.is(
      placed.toString('latin1').replace(/_NmP-[0-9a-f]+-/g, ''),
      alone.toString('latin1').replace(/_NmP-[0-9a-f]+-/g, ''),
    );
  }
  const small = Buffer.alloc(SIGNATURE_HEADROOM + 100);
  const { message: big } = composeMessage({ ...fields, html: 'x'.repeat(1000), text: null }, small);
  t.not(big.buffer, small.buffer, 'a message that does not fit gets its own buffer');
});

test('each composed message keeps its own body when the next one reuses the encoder’s scratch', async (t) => {
  const bodies = Array.from({ length: 12 }, (_, i) => `Grüße Nummer ${i} `.repeat(50 + i * 7));
  const composed = bodies.map(
    (html, i) =>
      composeMessage({
        from: 'Acme <hello@acme.test>',
        to: ['user@example.test'],
        cc: [],
        replyTo: [],
        subject: `Order ${i}`,
        html,
        text: i % 2 === 0 ? `Danke ${i} – ${'ä'.repeat(300)}` : null,
        headers: {},
        messageId: `<msg_${i}@acme.test>`,
        date: 0,
      }).message,
  );
  for (const [i, raw] of composed.entries()) {
    const parsed = await simpleParser(raw);
    // A single-part message ends with a line break (MailComposer adds one when the body has none).
    t.is(String(parsed.html).replace(/\n$/, ''), bodies[i] as string);
    if (i % 2 === 0) t.is(parsed.text?.trimEnd(), `Danke ${i} – ${'ä'.repeat(300)}`);
  }
});
