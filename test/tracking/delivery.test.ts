/**
 * Tracking end to end: mail delivered to a real SMTP server on loopback, its HTML parsed, the
 * pixel and links fetched over HTTP as a person's browser, Apple's proxy and scanners do; then the
 * events, the webhooks and analytics; and the rewritten message's DKIM verified by dkimpy.
 */
import test from 'ava';
import { simpleParser } from 'mailparser';
import { scanHtml } from '../../src/tracking/rewrite.js';
import { startDeliveryEnv, mx, send, settled } from '../delivery/env.js';
import { dkimpyVerify } from '../helpers/dkimpy-verify.js';
import { startReceiver } from '../webhooks/receiver.js';
import { createEndpoint } from '../webhooks/helpers.js';
import { APPLE_PROXY, CHROME, eventually, pipelined, trackingEvents } from './env.js';

const HTML = [
  '<html><body>',
  '<p>Your order <a href="https://shop.acme.test/orders/42?ref=mail&amp;x=1">is on its way</a>.</p>',
  '<p><a href="https://shop.acme.test/help">Help</a> or <a href="mailto:help@acme.test">write</a>.</p>',
  '<p><a href="https://shop.acme.test/private" data-posthorn-no-track>Private</a></p>',
  '<p><a href="https://shop.acme.test/unsubscribe?u=9">Unsubscribe</a></p>',
  '</body></html>',
].join('');
const TEXT = 'Your order is on its way: https://shop.acme.test/orders/42';
/** How long the MX waits for mail: a loaded test host can take more than the peer's default 5 s. */
const PEER_WAIT_MS = 30_000;

/** The server's own URL for a tracking URL of the mail (public_url is not the test server's port). */
const local = (base: string, url: string) => `${base}${new URL(url).pathname}`;

async function world(t: Parameters<typeof startDeliveryEnv>[0], scannerWindow = '1s') {
  const env = await startDeliveryEnv(t, {
    config: {
      webhooks: { allow_http: true, allow_private_targets: true },
      tracking: { scanner_window: scannerWindow },
    },
  });
  mx(env.dns, 'example.com', [{ host: 'mx.example.com', ip: '127.0.0.1' }]);
  const on = await env.ph.request('PUT', '/v1/tracking', {
    body: { opens_enabled: true, clicks_enabled: true, retention_days: 30 },
  });
  t.is(on.status, 200);
  return env;
}

test('delivered mail carries the pixel and tracked links (signed after the rewrite); a person, Apple and scanners are told apart in events, webhooks and analytics', async (t) => {
  const env = await world(t);
  const receiver = await startReceiver(t);
  await createEndpoint(env.ph, receiver.url, ['email.opened', 'email.clicked']);
  const id = await send(env, { to: ['ann@example.com'], html: HTML, text: TEXT });
  const [received] = await env.peer.waitFor(1, PEER_WAIT_MS);
  if (!received) throw new Error('no message at the MX');
  t.is(await settled(env.ph, id), 'delivered');

  const verdict = await dkimpyVerify(received.data, { host: env.dns.host, port: env.dns.port });
  t.true(verdict.ok, verdict.output);

  const parsed = await simpleParser(received.data);
  t.is(parsed.text?.trim(), TEXT);
  const html = parsed.html as string;
  const links = scanHtml(html).links.map((link) => link.url);
  const tracked = links.filter((url) => url.includes('/v1/track/click/'));
  t.is(tracked.length, 2);
  t.true(links.includes('mailto:help@acme.test'));
  t.true(html.includes('<a href="https://shop.acme.test/private" data-posthorn-no-track>'));
  t.true(links.includes('https://shop.acme.test/unsubscribe?u=9'));
  const pixel = /<img src="([^"]+\/v1\/track\/open\/[^"]+)"/.exec(html)?.[1];
  if (!pixel) throw new Error(`no pixel in ${html}`);
  t.true(html.indexOf(pixel) < html.indexOf('</body>'));

  // Past the scanner window: a person opens with a browser, Apple's proxy fetches the pixel too.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const image = await fetch(local(env.ph.url, pixel), { headers: { 'user-agent': CHROME } });
  t.is(image.status, 200);
  t.is((await image.arrayBuffer()).byteLength, 43);
  await fetch(local(env.ph.url, pixel), { headers: { 'user-agent': APPLE_PROXY } });
  // The person follows the first link; a link checker asks for the second with HEAD.
  const click = await fetch(local(env.ph.url, tracked[0] as string), {
    redirect: 'manual',
    headers: { 'user-agent': CHROME },
  });
  t.is(click.status, 302);
  t.is(click.headers.get('location'), 'https://shop.acme.test/orders/42?ref=mail&x=1');
  const head = await fetch(local(env.ph.url, tracked[1] as string), { method: 'HEAD', redirect: 'manual' });
  t.is(head.status, 302);
  t.is(head.headers.get('location'), 'https://shop.acme.test/help');

  const events = await eventually('four tracking events', async () => {
    const found = await trackingEvents(env.ph, id);
    return found.length === 4 && found;
  });
  t.deepEqual(
    events.map((e) => [e.type, e.data.machine, e.data.machine_reason]).sort(),
    [
      ['email.clicked', false, null],
      ['email.clicked', true, 'head_request'],
      ['email.opened', false, null],
      ['email.opened', true, 'apple_mpp'],
    ].sort(),
  );

  const hooks = await receiver.waitFor(4, 15_000);
  const payloads = hooks.map((h) => JSON.parse(h.body) as { type: string; data: Record<string, any> });
  t.deepEqual(
    payloads.map((p) => [p.type, p.data.email_id, p.data.machine]).sort(),
    [
      ['email.clicked', id, false],
      ['email.clicked', id, true],
      ['email.opened', id, false],
      ['email.opened', id, true],
    ].sort(),
  );

  const report = await env.ph.request('GET', '/v1/analytics?days=1');
  t.like(report.body, {
    sent: 1,
    delivered: 1,
    unique_opens: 1,
    unique_clicks: 1,
    open_rate: 1,
    click_rate: 1,
    machine_opens: 1,
    machine_clicks: 1,
  });
});

test('scanner behaviour: a gateway following every link as the message arrives is a machine, and analytics leaves it out', async (t) => {
  // A window long enough that a loaded test host still clicks inside it.
  const env = await world(t, '30s');
  const id = await send(env, { to: ['bo@example.com'], html: HTML, text: TEXT });
  const [received] = await env.peer.waitFor(1, PEER_WAIT_MS);
  if (!received) throw new Error('no message at the MX');
  t.is(await settled(env.ph, id), 'delivered');
  const tracked = scanHtml((await simpleParser(received.data)).html as string)
    .links.map((link) => link.url)
    .filter((url) => url.includes('/v1/track/click/'));
  // A gateway follows every link the moment the message arrives, with a browser's agent.
  const statuses = await pipelined(
    env.ph.url,
    tracked.map((url) => new URL(url).pathname),
    CHROME,
  );
  t.deepEqual(statuses, ['HTTP/1.1 302 Found', 'HTTP/1.1 302 Found']);
  const events = await eventually('two clicks', async () => {
    const found = await trackingEvents(env.ph, id);
    return found.length === 2 && found;
  });
  t.deepEqual(
    events.map((e) => [e.data.machine, e.data.machine_reason]),
    [
      [true, 'soon_after_delivery'],
      [true, 'soon_after_delivery'],
    ],
  );
  const report = await env.ph.request('GET', '/v1/analytics?days=1');
  t.like(report.body, { unique_clicks: 0, click_rate: 0, machine_clicks: 2 });
});

test('a message that turns tracking off is sent as submitted, and a text-only message is never touched', async (t) => {
  const env = await world(t);
  const off = await send(env, {
    to: ['cy@example.com'],
    html: HTML,
    text: TEXT,
    track_opens: false,
    track_clicks: false,
  });
  const plain = await send(env, { to: ['di@example.com'], html: undefined, text: TEXT });
  const messages = await env.peer.waitFor(2, PEER_WAIT_MS);
  await settled(env.ph, off);
  await settled(env.ph, plain);
  for (const message of messages) {
    const parsed = await simpleParser(message.data);
    if (parsed.html) t.is((parsed.html as string).trim(), HTML);
    else t.is(parsed.text?.trim(), TEXT);
    t.false(message.data.toString('latin1').includes('/v1/track/'));
  }
});
