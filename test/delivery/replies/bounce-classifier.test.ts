import test from 'ava';
import {
  type BounceCategory,
  type BounceClass,
  classifyDsn,
  classifyReply,
  classifySmtpResponse,
  classifyTransportFailure,
  expired,
  transportFailureOf,
} from '../../../src/delivery/replies/bounce-classifier.js';
import { smtpReply } from '../../../src/delivery/replies/smtp-reply.js';

type Expect =
  | 'delivered'
  | `deferred ${BounceCategory}`
  | `hard ${BounceCategory}`
  | `soft ${BounceCategory}`;

function expectation(result: BounceClass): Expect {
  if (result.outcome === 'delivered') return 'delivered';
  const category = result.category ?? 'other';
  if (result.outcome === 'deferred') return `deferred ${category}`;
  return result.hard ? `hard ${category}` : `soft ${category}`;
}

function describe(expected: Expect): string {
  if (expected === 'delivered') return 'is delivered';
  const [kind, category] = expected.split(' ');
  if (kind === 'deferred') return `is deferred (${category})`;
  return `is a ${kind} bounce (${category})`;
}

// Replies as servers send them: [reply, expected].
const replies: readonly [string, Expect][] = [
  ['250 2.0.0 OK 1700000000 a1-20020a.123 - gsmtp', 'delivered'],
  ['250 Ok: queued as 4F3A21C0', 'delivered'],
  // Enhanced status codes decide.
  ['550 5.1.1 User unknown', 'hard mailbox_unknown'],
  ['550 5.1.2 Bad destination system address', 'hard domain_unknown'],
  ['553 5.1.3 Bad destination mailbox address syntax', 'hard mailbox_unknown'],
  ['550 5.1.10 Recipient address has null MX', 'hard domain_unknown'],
  ['550 5.2.1 Mailbox disabled, not accepting messages', 'hard mailbox_disabled'],
  ['552 5.2.2 Mailbox full', 'soft mailbox_full'],
  ['452 4.2.2 Mailbox full', 'deferred mailbox_full'],
  ['552 5.3.4 Message too big for system', 'soft message_too_large'],
  ['552 5.2.3 Message length exceeds administrative limit', 'soft message_too_large'],
  ['451 4.4.3 Directory server failure', 'deferred dns_failure'],
  ['421 4.4.5 Mail system congestion', 'deferred rate_limited'],
  ['452 4.5.3 Too many recipients', 'deferred rate_limited'],
  // RFC 5321 §4.5.3.1.10: RFC 821's 552 for too many recipients is temporary.
  ['552 5.5.3 Too many recipients', 'deferred rate_limited'],
  ['552 Too many recipients', 'deferred rate_limited'],
  // RFC 3463 §3.6: X.5.3 is too many recipients in one transaction, whatever the reply code.
  ['550 5.5.3 Too many recipients', 'deferred rate_limited'],
  ['554 5.5.3 Recipient limit reached', 'deferred rate_limited'],
  ['554 5.6.0 Message content rejected', 'soft content'],
  ['550 5.7.1 Delivery not authorized, message refused', 'soft policy'],
  ['550 5.7.13 User account disabled', 'hard mailbox_disabled'],
  ['550 5.7.23 SPF validation failed', 'soft auth_failure'],
  ['550 5.7.20 No passing DKIM signature found', 'soft auth_failure'],
  ['454 4.7.5 Cryptographic failure', 'deferred tls'],
  ['550 5.1.1 this text says mailbox full but the code wins', 'hard mailbox_unknown'],
  ['450 5.1.1 User unknown', 'deferred mailbox_unknown'],
  // Gmail.
  [
    "550-5.1.1 The email account that you tried to reach does not exist. Please try\n550-5.1.1 double-checking the recipient's email address for typos or\n550 5.1.1 unnecessary spaces. https://support.google.com/mail/?p=NoSuchUser - gsmtp",
    'hard mailbox_unknown',
  ],
  [
    '552-5.2.2 The email account that you tried to reach is over quota.\n552 5.2.2 https://support.google.com/mail/?p=OverQuotaPerm - gsmtp',
    'soft mailbox_full',
  ],
  ['550 5.2.1 The email account that you tried to reach is disabled. - gsmtp', 'hard mailbox_disabled'],
  [
    '450-4.2.1 The user you are trying to contact is receiving mail at a rate that\n450 4.2.1 prevents additional messages from being delivered. - gsmtp',
    'deferred rate_limited',
  ],
  [
    '421-4.7.0 Our system has detected an unusual rate of unsolicited mail originating\n421 4.7.0 from your IP address. To protect our users from spam, mail sent from your IP address has been temporarily rate limited. - gsmtp',
    'deferred rate_limited',
  ],
  [
    '550-5.7.1 Our system has detected that this message is likely unsolicited mail.\n550 5.7.1 To reduce the amount of spam sent to Gmail, this message has been blocked. - gsmtp',
    'soft spam_block',
  ],
  [
    "550-5.7.26 Unauthenticated email from example.com is not accepted due to\n550 5.7.26 domain's DMARC policy. - gsmtp",
    'soft auth_failure',
  ],
  [
    '421-4.7.28 Gmail has detected an unusual rate of unsolicited mail from your IP. - gsmtp',
    'deferred spam_block',
  ],
  ["552-5.3.4 Your message exceeded Google's message size limits. - gsmtp", 'soft message_too_large'],
  ['550 5.4.4 Domain not found. - gsmtp', 'hard domain_unknown'],
  // Outlook / Microsoft 365.
  [
    '550 5.5.0 Requested action not taken: mailbox unavailable (S2017062302). [x.eop-EUR01.prod.protection.outlook.com]',
    'hard mailbox_unknown',
  ],
  [
    '550 5.4.1 Recipient address rejected: Access denied. AS(201806281) [x.prod.protection.outlook.com]',
    'hard mailbox_unknown',
  ],
  [
    "550 5.7.1 Unfortunately, messages from [192.0.2.1] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150).",
    'soft spam_block',
  ],
  ['451 4.7.500 Server busy. Please try again later from [192.0.2.1]. (S77719)', 'deferred rate_limited'],
  [
    '451 4.7.650 The mail server [192.0.2.1] has been temporarily rate limited due to IP reputation.',
    'deferred rate_limited',
  ],
  ['550 5.7.606 Access denied, banned sending IP [192.0.2.1].', 'soft spam_block'],
  ['550 5.7.708 Service unavailable. Access denied, traffic not accepted from this IP.', 'soft policy'],
  // Yahoo / AOL.
  [
    "554 delivery error: dd This user doesn't have a yahoo.com account (x@yahoo.com) [0] - mta1001.mail.gq1.yahoo.com",
    'hard mailbox_unknown',
  ],
  ['552 1 Requested mail action aborted, mailbox not found', 'hard mailbox_unknown'],
  [
    '421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints',
    'deferred rate_limited',
  ],
  [
    '553 5.7.2 [TSS09] All messages from 192.0.2.1 will be permanently deferred; Retrying will NOT succeed.',
    'soft policy',
  ],
  [
    '550 5.7.9 This mail has been blocked because the sender is unauthenticated. Yahoo requires all senders to authenticate with either SPF or DKIM.',
    'soft auth_failure',
  ],
  ['554 5.7.9 Message not accepted for policy reasons.', 'soft policy'],
  // iCloud, Postfix, Exim, others without enhanced codes.
  ['554 5.7.1 [CS01] Message rejected due to local policy.', 'soft policy'],
  [
    '550 <x@example.com>: Recipient address rejected: User unknown in virtual mailbox table',
    'hard mailbox_unknown',
  ],
  ['550 No such user here', 'hard mailbox_unknown'],
  ['550 Unrouteable address', 'hard domain_unknown'],
  ["553 sorry, that domain isn't in my list of allowed rcpthosts", 'hard mailbox_unknown'],
  ['552 Requested mail action aborted: exceeded storage allocation', 'soft mailbox_full'],
  ['550 Mailbox quota exceeded', 'soft mailbox_full'],
  ['550 Account has been suspended', 'hard mailbox_disabled'],
  ['554 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org', 'soft spam_block'],
  ['550 Message rejected as spam by Content Filtering.', 'soft spam_block'],
  ['554 5.7.1 Relay access denied', 'soft policy'],
  ['550 5.7.1 <a@b.example>: Sender address rejected: Domain not found', 'soft policy'],
  ['554 Message contains a virus (Eicar-Test-Signature)', 'soft content'],
  [
    '450 4.2.0 <x@example.com>: Recipient address rejected: Greylisted, see https://postgrey.example/help',
    'deferred policy',
  ],
  ['451 Temporary local problem - please try later', 'deferred other'],
  ['421 Service not available, closing transmission channel', 'deferred network'],
  ['421 Too many concurrent SMTP connections; please try again later.', 'deferred rate_limited'],
  ['451 4.3.0 Temporary lookup failure', 'deferred dns_failure'],
  ['530 5.7.0 Must issue a STARTTLS command first', 'soft tls'],
  ['550 Requested action not taken', 'hard other'],
  ['554 Transaction failed', 'hard other'],
  ['556 5.1.10 Recipient address has null MX', 'hard domain_unknown'],
  ['521 Host does not accept mail', 'hard domain_unknown'],
  ['503 5.5.1 Error: need RCPT command', 'deferred other'],
];

for (const [raw, expected] of replies) {
  test(`${JSON.stringify(raw.split('\n')[0])} ${describe(expected)}`, (t) => {
    t.is(expectation(classifySmtpResponse(raw)), expected);
  });
}

test('a 5.1.1 reply is a hard bounce and carries its status', (t) => {
  t.deepEqual(classifyReply(smtpReply(550, '5.1.1 User unknown')), {
    outcome: 'bounced',
    category: 'mailbox_unknown',
    hard: true,
    status: '5.1.1',
  });
});

test('a reply without an enhanced code gets a status of its class', (t) => {
  t.is(classifySmtpResponse('554 Transaction failed').status, '5.0.0');
  t.is(classifySmtpResponse('451 local error').status, '4.0.0');
  t.is(classifySmtpResponse('250 ok').status, '2.0.0');
});

test('a delivered reply has no category and is never hard', (t) => {
  t.deepEqual(classifySmtpResponse('250 2.6.0 Message accepted'), {
    outcome: 'delivered',
    category: null,
    hard: false,
    status: '2.6.0',
  });
});

test('a reply code out of range is a fatal error that never suppresses (RFC 5321 §4.2)', (t) => {
  for (const code of [111, 611, 999]) {
    t.deepEqual(classifyReply(smtpReply(code, 'Unheard-of status')), {
      outcome: 'bounced',
      category: 'other',
      hard: false,
      status: '5.5.0',
    });
  }
});

test('text that is not an SMTP reply is deferred as a protocol failure', (t) => {
  t.is(expectation(classifySmtpResponse('HTTP/1.1 400 Bad Request')), 'deferred other');
  t.is(expectation(classifySmtpResponse('')), 'deferred other');
  t.is(expectation(classifyReply(smtpReply(354, 'go ahead'))), 'deferred other');
});

// DSNs: [Status, Diagnostic-Code, expected].
const dsns: readonly [string, string, Expect][] = [
  [
    '5.1.1',
    'smtp; 550 5.1.1 <a@b.example>: Recipient address rejected: User unknown',
    'hard mailbox_unknown',
  ],
  ['5.1.1 (user unknown)', '', 'hard mailbox_unknown'],
  ['5.2.2', 'smtp; 552 5.2.2 Mailbox full', 'soft mailbox_full'],
  // The remote MTA gave up: a DSN reports a bounce, whatever a live 552 would mean.
  ['5.5.3', 'smtp; 552 5.5.3 Too many recipients', 'soft rate_limited'],
  ['4.4.1', 'X-Postfix; connect to mx.b.example[192.0.2.1]:25: Connection timed out', 'deferred network'],
  [
    '5.4.7',
    'X-Postfix; delivery temporarily suspended: connect to mx.b.example: Connection refused',
    'soft network',
  ],
  [
    '5.0.0',
    'smtp; 550 5.1.1 The email account that you tried to reach does not exist',
    'hard mailbox_unknown',
  ],
  ['5.0.0', 'smtp; 550 No such user', 'hard mailbox_unknown'],
  ['5.7.1', 'smtp; 550 5.7.1 Message rejected as spam', 'soft spam_block'],
  ['', 'smtp; 452 4.2.2 Over quota', 'deferred mailbox_full'],
  ['2.0.0', 'smtp; 250 2.0.0 OK', 'delivered'],
  ['5.0.0', '', 'hard other'],
  [
    '5.7.26',
    "smtp;550-5.7.26 Unauthenticated email is not accepted due to\n   domain's DMARC policy",
    'soft auth_failure',
  ],
];

for (const [status, diagnostic, expected] of dsns) {
  test(`a DSN with Status ${JSON.stringify(status)} and ${JSON.stringify(diagnostic.slice(0, 40))} ${describe(expected)}`, (t) => {
    t.is(expectation(classifyDsn(status, diagnostic)), expected);
  });
}

test('a DSN keeps the class of its Status when the diagnostic is more specific', (t) => {
  t.is(classifyDsn('5.0.0', 'smtp; 550 5.1.1 User unknown').status, '5.1.1');
  t.is(classifyDsn('4.0.0', 'smtp; 550 5.1.1 User unknown').outcome, 'deferred');
});

const transport: readonly [string, Expect][] = [
  ['connect_failed', 'deferred network'],
  ['timeout', 'deferred network'],
  ['connection_lost', 'deferred network'],
  ['tls_failed', 'deferred tls'],
  ['tls_unavailable', 'deferred tls'],
  ['dns_temporary', 'deferred dns_failure'],
  ['domain_not_found', 'hard domain_unknown'],
  ['null_mx', 'hard domain_unknown'],
  ['no_mx_address', 'soft dns_failure'],
  ['protocol', 'deferred other'],
  ['unknown', 'deferred other'],
];

for (const [kind, expected] of transport) {
  test(`a ${kind} transport failure ${describe(expected)}`, (t) => {
    t.is(
      expectation(classifyTransportFailure(kind as Parameters<typeof classifyTransportFailure>[0])),
      expected,
    );
  });
}

test('a null MX bounces with status 5.1.10 (RFC 7505)', (t) => {
  t.is(classifyTransportFailure('null_mx').status, '5.1.10');
});

test('MX hosts that all have no address bounce with status 5.4.4 (unable to route)', (t) => {
  t.is(classifyTransportFailure('no_mx_address').status, '5.4.4');
});

test("thrown errors are named by their system code before nodemailer's", (t) => {
  t.is(transportFailureOf(Object.assign(new Error('x'), { code: 'ECONNREFUSED' })), 'connect_failed');
  t.is(
    transportFailureOf(Object.assign(new Error('x'), { code: 'ESOCKET', originalCode: 'ECONNREFUSED' })),
    'connect_failed',
  );
  t.is(transportFailureOf(Object.assign(new Error('x'), { code: 'ECONNECTION' })), 'connection_lost');
  t.is(transportFailureOf(Object.assign(new Error('x'), { code: 'ETIMEDOUT' })), 'timeout');
  t.is(transportFailureOf(Object.assign(new Error('x'), { code: 'ETLS' })), 'tls_failed');
  t.is(
    transportFailureOf(Object.assign(new Error('x'), { code: 'ERR_SSL_WRONG_VERSION_NUMBER' })),
    'tls_failed',
  );
  t.is(transportFailureOf(Object.assign(new Error('x'), { code: 'EAI_AGAIN' })), 'dns_temporary');
  t.is(transportFailureOf(new Error('no code')), 'unknown');
  t.is(transportFailureOf('a string'), 'unknown');
});

test('a recipient whose retries ran out bounces softly with 5.4.7 and keeps its last cause', (t) => {
  const last = classifySmtpResponse('451 4.7.500 Server busy. Please try again later');
  t.deepEqual(expired(last), { outcome: 'bounced', category: 'rate_limited', hard: false, status: '5.4.7' });
  t.deepEqual(expired(null), { outcome: 'bounced', category: 'network', hard: false, status: '5.4.7' });
});
