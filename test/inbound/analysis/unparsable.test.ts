/**
 * Routed mail that mailparser refuses (over 1,000 MIME parts) was answered 250 and then failed
 * processing forever, invisible and stuck in the spool. It is now stored with the header fields
 * that can be read, flagged with `parse_error`, and the whole message kept as an attachment.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { createRoute, DOMAIN, eventually, startInboundEnv } from '../env.js';
import { sendRaw } from '../smtp-client.js';

test('a message with more MIME parts than the parser takes is stored flagged, whole, as an attachment', async (t) => {
  const env = await startInboundEnv(t);
  await createRoute(env.ph, env.domainId, 'support');
  const parts = Array.from({ length: 1001 }, (_, i) => `--B\nContent-Type: text/plain\n\npart ${i}\n`).join(
    '',
  );
  const message = `From: Ann <ann@sender.example>\nTo: support@${DOMAIN}\nSubject: many parts\nMessage-ID: <many@sender.example>\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n\n${parts}--B--\n`;
  const reply = await sendRaw(env.smtpPort, 'ann@sender.example', [`support@${DOMAIN}`], message);
  t.is(reply.code, 250);
  await env.settled();

  t.deepEqual(readdirSync(join(env.ph.dataDir, 'inbound', 'spool')), [], 'nothing is left in the spool');
  const list = await env.ph.request('GET', '/v1/inbound/emails');
  t.is(list.body.data.length, 1);
  t.like(list.body.data[0], {
    subject: 'many parts',
    from: '"Ann" <ann@sender.example>',
    attachment_count: 1,
  });
  const email = await env.ph.request('GET', `/v1/inbound/emails/${list.body.data[0].id}`);
  t.like(email.body, {
    text: null,
    html: null,
    message_id: 'many@sender.example',
    to: [`support@${DOMAIN}`],
  });
  t.regex(email.body.parse_error, /child nodes/i);
  t.like(email.body.attachments[0], { filename: 'original.eml', content_type: 'message/rfc822' });

  await env.ph.server.services.inbound.scanNow();
  const attachment = await eventually(async () => {
    const again = await env.ph.request('GET', `/v1/inbound/emails/${list.body.data[0].id}`);
    return again.body.attachments[0].scan_state === 'clean' ? again.body.attachments[0] : undefined;
  });
  const download = await env.ph.request('GET', attachment.download_url);
  t.is(download.status, 200);
  const raw = download.text as string;
  t.regex(raw, /^Received: from mx\.reporter\.example/);
  t.true(raw.includes('part 1000\r\n--B--'), 'the whole message, as received');
});

test('a parsed message has no parse_error', async (t) => {
  const env = await startInboundEnv(t);
  await createRoute(env.ph, env.domainId, 'support');
  await env.send({ from: 'ann@sender.example', to: `support@${DOMAIN}`, subject: 'fine', text: 'Hello.' });
  await env.settled();
  const list = await env.ph.request('GET', '/v1/inbound/emails');
  const email = await env.ph.request('GET', `/v1/inbound/emails/${list.body.data[0].id}`);
  t.is(email.body.parse_error, null);
  t.is(email.body.text.trim(), 'Hello.');
});
