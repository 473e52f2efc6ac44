import test from 'ava';
import {
  formatSmtpReply,
  parseEnhancedStatus,
  parseSmtpReply,
  smtpReply,
} from '../../../src/delivery/replies/smtp-reply.js';

test('a one-line reply splits into code, enhanced code and text', (t) => {
  t.deepEqual(parseSmtpReply('550 5.1.1 <a@b.example>: Recipient address rejected: User unknown\r\n'), {
    code: 550,
    enhanced: '5.1.1',
    lines: ['<a@b.example>: Recipient address rejected: User unknown'],
    text: '<a@b.example>: Recipient address rejected: User unknown',
  });
});

test('a multi-line reply keeps each line and strips the enhanced code from all of them', (t) => {
  const reply = parseSmtpReply(
    '550-5.7.26 Unauthenticated email is not\r\n550-5.7.26 accepted due to\r\n550 5.7.26 DMARC policy.',
  );
  t.is(reply?.code, 550);
  t.is(reply?.enhanced, '5.7.26');
  t.deepEqual(reply?.lines, ['Unauthenticated email is not', 'accepted due to', 'DMARC policy.']);
  t.is(reply?.text, 'Unauthenticated email is not accepted due to DMARC policy.');
});

test('lines joined by a bare LF, as nodemailer reports them, parse the same', (t) => {
  t.is(
    parseSmtpReply('452-4.2.2 The account is over quota\n452 4.2.2 Try later')?.text,
    'The account is over quota Try later',
  );
});

test('a reply without an enhanced code has none', (t) => {
  const reply = parseSmtpReply('250 Ok: queued as 4F3A21C0');
  t.is(reply?.enhanced, null);
  t.is(reply?.text, 'Ok: queued as 4F3A21C0');
});

test('a bare code is a reply with empty text', (t) => {
  t.deepEqual(parseSmtpReply('250'), { code: 250, enhanced: null, lines: [''], text: '' });
});

test('numbers that only look like an enhanced code are text', (t) => {
  t.is(parseSmtpReply('250 2.0.0OK')?.enhanced, null);
  t.is(parseSmtpReply('550 1.2.3 odd')?.enhanced, null);
  t.is(parseSmtpReply('550 5.1.1234 too long')?.enhanced, null);
});

test('a line without a code continues the text', (t) => {
  t.is(parseSmtpReply('550 first part\r\n  second part')?.text, 'first part second part');
});

test('text that does not start with a reply code is not a reply', (t) => {
  t.is(parseSmtpReply('hello'), null);
  t.is(parseSmtpReply(''), null);
  t.is(parseSmtpReply('55 short'), null);
});

test('a reply built from a code and a text finds the enhanced code in the text', (t) => {
  t.deepEqual(smtpReply(452, '4.5.3 Too many recipients'), {
    code: 452,
    enhanced: '4.5.3',
    lines: ['Too many recipients'],
    text: 'Too many recipients',
  });
});

test('a reply formats back to wire form', (t) => {
  const raw = '550-5.1.1 first\r\n550 5.1.1 second';
  const reply = parseSmtpReply(raw);
  if (reply === null) return t.fail();
  t.is(formatSmtpReply(reply), raw);
  t.is(formatSmtpReply(smtpReply(250)), '250');
});

test('a DSN Status with a comment parses as an enhanced status', (t) => {
  t.deepEqual(parseEnhancedStatus(' 5.1.1 (user unknown)'), { class: 5, subject: 1, detail: 1 });
  t.deepEqual(parseEnhancedStatus('4.7.650'), { class: 4, subject: 7, detail: 650 });
  t.is(parseEnhancedStatus('3.1.1'), null);
  t.is(parseEnhancedStatus(''), null);
});
