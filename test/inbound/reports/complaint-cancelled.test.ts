import test from 'ava';
import { DOMAIN, eventRows, startInboundEnv } from '../env.js';
import { arf, FBL, recipientRow } from '../feedback-env.js';
import { sendRaw } from '../smtp-client.js';
import { query } from '../../helpers/sql.js';

test('a complaint about a cancelled scheduled send is not believed: its recipient stays cancelled and is not suppressed', async (t) => {
  const env = await startInboundEnv(t, { smtp_in: { complaint_address: FBL } });
  const sent = await env.ph.request('POST', '/v1/emails', {
    body: {
      from: `Acme <hello@${DOMAIN}>`,
      to: ['ivy@example.net'],
      subject: 'Your receipt',
      text: 'Thanks for your order.',
      send_at: new Date(Date.now() + 3_600_000).toISOString(),
    },
  });
  t.is((await env.ph.request('DELETE', `/v1/emails/${sent.body.id}/schedule`)).status, 204);
  const reply = await sendRaw(
    env.smtpPort,
    'feedback@isp.example',
    [FBL],
    arf({
      headersType: 'text/rfc822-headers',
      headers: `Message-ID: <${sent.body.id}@${DOMAIN}>\nFrom: Acme <hello@${DOMAIN}>\nTo: ivy@example.net\nSubject: Your receipt\n`,
    }),
  );
  t.is(reply.code, 250);
  await env.settled();
  const [{ id }] = (await query<{ id: string }>(
    env.ph.server.kernel.store,
    'select id from message_recipients where message_id = ?',
    sent.body.id,
  )) as [{ id: string }];
  t.is((await recipientRow(env, id)).status, 'cancelled');
  t.is((await eventRows(env.ph, 'email.complained')).length, 0);
  t.is((await env.ph.request('GET', '/v1/suppressions/ivy@example.net')).status, 404);
  const [receipt] = (await query<{ outcome: string }>(
    env.ph.server.kernel.store,
    'select outcome from inbound_receipts',
  )) as [{ outcome: string }];
  t.is(
    (JSON.parse(receipt.outcome) as { complaints?: Array<{ skipped?: string }> }).complaints?.[0]?.skipped,
    'recipient already cancelled',
  );
});
