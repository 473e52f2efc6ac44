import { randomBytes } from 'node:crypto';
import test from 'ava';
import { createRoute, DOMAIN, startInboundEnv } from './env.js';

const DAY = 86_400_000;

test('message retention clears the bodies and attachments of received mail, keeping the message', async (t) => {
  const env = await startInboundEnv(t);
  await createRoute(env.ph, env.domainId, 'support');
  await env.send({
    from: 'ann@sender.example',
    to: `support@${DOMAIN}`,
    subject: 'Invoice',
    text: 'See the attachment.',
    html: '<p>See the attachment.</p>',
    attachments: [
      { filename: 'invoice.pdf', content: Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(2048)]) },
    ],
  });
  await env.settled();
  const list = await env.ph.request('GET', '/v1/inbound/emails');
  const id = list.body.data[0].id as string;
  const { store } = env.ph.server.services.inbound;

  t.is(await store.purgeBodiesBefore(Date.now() - DAY), 0);
  t.is(await store.purgeAttachmentsBefore(Date.now() - DAY), 0);
  t.is((await env.ph.request('GET', `/v1/inbound/emails/${id}`)).body.text, 'See the attachment.');

  t.is(await store.purgeBodiesBefore(Date.now() + DAY), 1);
  t.is(await store.purgeAttachmentsBefore(Date.now() + DAY), 1);
  const shown = await env.ph.request('GET', `/v1/inbound/emails/${id}`);
  t.is(shown.status, 200);
  t.like(shown.body, { subject: 'Invoice', text: null, html: null });
  t.deepEqual(shown.body.attachments, []);
  t.is(await store.purgeBodiesBefore(Date.now() + DAY), 0, 'a second pass finds nothing more');
});
