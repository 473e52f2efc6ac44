import test from 'ava';
import { requireClamd } from '../helpers/clamd.js';
import { sendSmtp } from '../inbound/env.js';
import { audienceWith, headersOf, sendBroadcast, startBroadcastEnv, until } from './env.js';

test("a mail to a broadcast message's mailto: unsubscribe address, received by the inbound listener, unsubscribes the contact; a forged one is refused at RCPT", async (t) => {
  t.timeout(240_000);
  const clamd = await requireClamd();
  const env = await startBroadcastEnv(t, {
    config: {
      smtp_in: { enabled: true, listen: '127.0.0.1:0' },
      clamav: { host: clamd.host, port: clamd.port },
    },
  });
  const audience = await audienceWith(env, [{ email: 'dee@example.net' }]);
  const id = await sendBroadcast(env, { audience_id: audience });
  const [message] = await env.peer.waitFor(1, 30_000);
  const mailto = /<mailto:([^?>]+)\?subject=unsubscribe>/.exec(
    headersOf(message?.data ?? Buffer.alloc(0)).get('list-unsubscribe') ?? '',
  )?.[1];
  if (!mailto) throw new Error('no mailto: in List-Unsubscribe');
  const smtpPort = (await env.ph.server.services.inbound.ready()).port;

  const forged = mailto.replace(/-[0-9a-z]{10}@/, '-0000000000@');
  const refused = await sendSmtp(smtpPort, {
    from: 'dee@example.net',
    to: forged,
    subject: 'unsubscribe',
    text: 'unsubscribe',
  }).catch((error: { responseCode?: number }) => error);
  t.is((refused as { responseCode?: number }).responseCode, 550, 'a forged token is no address of ours');

  // The way a mail program sends it: to the address, subject "unsubscribe".
  const sent = await sendSmtp(smtpPort, {
    from: 'dee@example.net',
    to: mailto,
    subject: 'unsubscribe',
    text: '',
  });
  t.deepEqual(sent.accepted, [mailto]);
  await env.ph.server.services.inbound.settled();
  const contact = await until('the contact to be unsubscribed', async () => {
    const res = await env.ph.request('GET', `/v1/audiences/${audience}/contacts/dee@example.net`);
    return res.body.status === 'unsubscribed' ? res.body : undefined;
  });
  const last = contact.history.at(-1);
  t.is(last.source, 'mailto');
  t.is(last.broadcast_id, id);
  const progress = (await env.ph.request('GET', `/v1/broadcasts/${id}`)).body.progress;
  t.is(progress.unsubscribed, 1);
});
