/**
 * A report acts only on a recipient its evidence proves: anyone who received a message (or one
 * recipient of a multi-recipient transaction) could otherwise bounce or complain about the other
 * recipients with a forged DSN or ARF report, and suppress them.
 */
import test from 'ava';
import type { AuthResults } from '../../../src/inbound/analysis/authenticate.js';
import { createRecipientProof } from '../../../src/inbound/reports/feedback-proof.js';
import { DOMAIN, eventRows, type InboundEnv, startInboundEnv } from '../env.js';
import { arf, dsn, FBL, recipientRow, sendAndDeliver, signedBy, verp } from '../feedback-env.js';
import { sendRaw } from '../smtp-client.js';
import { query } from '../../helpers/sql.js';

const auth = (dkim: Array<[string, string]>, spf?: [string, string]): AuthResults => ({
  spf: spf ? { result: spf[0], domain: spf[1], info: '' } : null,
  dkim: dkim.map(([result, domain]) => ({ result, domain, selector: 's', aligned: false, info: '' })),
  dmarc: null,
  arc: null,
  authentication_results: '',
});

const proves = createRecipientProof(['isp.example']);
const cases: Array<[string, Parameters<typeof proves>, boolean]> = [
  [
    'the only recipient, whatever the evidence',
    ['arf', 'bob@example.net', 1, { mailFrom: 'x@y.example', auth: null }],
    true,
  ],
  [
    'one of two, without authentication results',
    ['dsn', 'bob@example.net', 2, { mailFrom: '', auth: null }],
    false,
  ],
  [
    'one of two, DSN signed by the recipient domain',
    ['dsn', 'bob@example.net', 2, { mailFrom: '', auth: auth([['pass', 'example.net']]) }],
    true,
  ],
  [
    'one of two, DSN signed by a host of the recipient organization',
    ['dsn', 'bob@example.net', 2, { mailFrom: '', auth: auth([['pass', 'mx.Example.NET']]) }],
    true,
  ],
  [
    'one of two, "DSN" with a sender',
    ['dsn', 'bob@example.net', 2, { mailFrom: 'bob@example.net', auth: auth([['pass', 'example.net']]) }],
    false,
  ],
  [
    'one of two, DSN whose signature fails',
    ['dsn', 'bob@example.net', 2, { mailFrom: '', auth: auth([['fail', 'example.net']]) }],
    false,
  ],
  [
    'one of two, DSN signed by another domain',
    ['dsn', 'bob@example.net', 2, { mailFrom: '', auth: auth([['pass', 'evil.example']]) }],
    false,
  ],
  [
    'one of two, DSN with aligned SPF',
    ['dsn', 'bob@example.net', 2, { mailFrom: '', auth: auth([], ['pass', 'mx.example.net']) }],
    true,
  ],
  [
    'one of two, DSN with unaligned SPF',
    ['dsn', 'bob@example.net', 2, { mailFrom: '', auth: auth([], ['pass', 'evil.example']) }],
    false,
  ],
  [
    'one of two, complaint signed by a feedback loop',
    ['arf', 'bob@example.net', 2, { mailFrom: 'fbl@isp.example', auth: auth([['pass', 'isp.example']]) }],
    true,
  ],
  [
    'one of two, complaint signed by a feedback loop subdomain',
    ['arf', 'bob@example.net', 2, { mailFrom: 'fbl@isp.example', auth: auth([['pass', 'fbl.isp.example']]) }],
    true,
  ],
  [
    'one of two, complaint signed by a look-alike',
    ['arf', 'bob@example.net', 2, { mailFrom: 'fbl@isp.example', auth: auth([['pass', 'notisp.example']]) }],
    false,
  ],
  [
    // A co-recipient at the same provider, writing from their own account there.
    'one of two, complaint signed by the recipient domain but no feedback loop',
    ['arf', 'bob@example.net', 2, { mailFrom: 'eve@example.net', auth: auth([['pass', 'example.net']]) }],
    false,
  ],
  [
    'one of two, complaint with aligned SPF but no feedback loop',
    ['arf', 'bob@example.net', 2, { mailFrom: 'eve@example.net', auth: auth([], ['pass', 'example.net']) }],
    false,
  ],
  [
    'one of two, private-suffix neighbours are not one organization',
    ['dsn', 'v@victim.blogspot.com', 2, { mailFrom: '', auth: auth([['pass', 'attacker.blogspot.com']]) }],
    false,
  ],
];
for (const [name, args, expected] of cases) {
  test(`proof: ${name}`, (t) => {
    t.is(proves(...args), expected);
  });
}

async function sendTeamMail(env: InboundEnv) {
  return sendAndDeliver(env, ['attacker@evil.example', 'victim@example.net']);
}

async function receipts(env: InboundEnv) {
  return (
    await query<{ kind: string; outcome: string }>(
      env.ph.server.kernel.store,
      'select kind, outcome from inbound_receipts order by id',
    )
  ).map((row) => ({ kind: row.kind, outcome: JSON.parse(row.outcome) as Record<string, unknown> }));
}

test('a forged complaint naming another recipient of a message changes nothing', async (t) => {
  const env = await startInboundEnv(t, { smtp_in: { complaint_address: FBL } });
  const sent = await sendTeamMail(env);
  // The attacker knows the Message-ID of the copy it received and writes the victim in.
  const forged = arf({
    rcptTo: 'victim@example.net',
    headersType: 'text/rfc822-headers',
    headers: `Message-ID: <${sent.id}@${DOMAIN}>\nFrom: hello@${DOMAIN}\nTo: attacker@evil.example, victim@example.net\n`,
  });
  t.is((await sendRaw(env.smtpPort, 'x@evil.example', [FBL], forged)).code, 250);
  await env.settled();
  t.is((await recipientRow(env, sent.recipients['victim@example.net'] as string)).status, 'delivered');
  t.is((await eventRows(env.ph, 'email.complained')).length, 0);
  t.is((await env.ph.request('GET', '/v1/suppressions')).body.data.length, 0);
  t.deepEqual(await receipts(env), [
    {
      kind: 'ignored',
      outcome: {
        received: {},
        ignored: 'recipient not proven',
        message_id: sent.id,
        unproven: ['victim@example.net'],
      },
    },
  ]);
});

test('a DSN to a multi-recipient VERP address acts on the recipient it names only when authenticated', async (t) => {
  const env = await startInboundEnv(t);
  const sent = await sendAndDeliver(env, ['bob@example.net', 'carol@example.net']);
  const to = verp(env, { kind: 'job', id: sent.jobId });
  const bounceCarol = dsn(to, sent, [
    'Final-Recipient: rfc822; carol@example.net\nAction: failed\nStatus: 5.1.1',
  ]);
  const carol = sent.recipients['carol@example.net'] as string;

  // Bob (or anyone who saw the return path) writes a DSN about carol: not believed.
  t.is((await sendRaw(env.smtpPort, '', [to], bounceCarol)).code, 250);
  // Signed by carol's domain, but with a sender: a DSN comes with the null reverse-path.
  const signed = await signedBy(env, 'example.net', bounceCarol);
  t.is((await sendRaw(env.smtpPort, 'bob@example.net', [to], signed)).code, 250);
  await env.settled();
  t.is((await recipientRow(env, carol)).status, 'delivered');
  t.is((await eventRows(env.ph, 'email.bounced')).length, 0);
  t.deepEqual(
    (await receipts(env)).map((r) => [r.kind, r.outcome.ignored]),
    [
      ['ignored', 'recipient not proven'],
      ['ignored', 'recipient not proven'],
    ],
  );

  // The same DSN from the recipients' mail host, which SPF authorizes: carol bounces.
  env.dns.set('mx.example.net', 'TXT', ['v=spf1 ip4:127.0.0.1 -all']);
  t.is((await sendRaw(env.smtpPort, '', [to], bounceCarol, { helo: 'mx.example.net' })).code, 250);
  await env.settled();
  t.is((await recipientRow(env, carol)).status, 'bounced');
  t.is((await recipientRow(env, sent.recipients['bob@example.net'] as string)).status, 'delivered');
  t.is((await env.ph.request('GET', '/v1/suppressions/carol@example.net')).body.reason, 'hard_bounce');
});
