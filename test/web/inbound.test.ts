/**
 * The dashboard's inbound pages in a real browser (Debian's chromium through playwright-core)
 * against the real server receiving over SMTP on loopback, with the real clamd of scripts/peers:
 * a received message with its authentication results, a clean attachment downloaded byte for byte
 * and an infected one refused, its thread, and a reply sent from the page into the thread.
 */
import test from 'ava';
import { launchChromium } from '../helpers/browser.js';
import { openPage, signInByPassword } from '../helpers/dashboard-page.js';
import { createRoute, DOMAIN, EICAR, eventually, startInboundEnv } from '../inbound/env.js';
import { signIn } from '../oauth/env.js';
import { checkPage, DESKTOP } from './pages.js';

const NOTE = Buffer.from('Order 42: two boxes, one pallet.\n');

test('a person reads a received message, its authentication and scanned attachments, downloads the clean one, and replies in its thread', async (t) => {
  t.timeout(120_000);
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const env = await startInboundEnv(t);
  await signIn(env.ph); // the owner's password: 'correct horse battery staple'
  await createRoute(env.ph, env.domainId, 'orders');
  await env.send({
    from: 'Buyer <buyer@sender.example>',
    to: `orders@${DOMAIN}`,
    subject: 'Delivery notes',
    text: 'The notes are attached.',
    messageId: '<notes-1@sender.example>',
    attachments: [
      { filename: 'notes.txt', content: NOTE, contentType: 'text/plain' },
      { filename: 'eicar.com', content: EICAR, contentType: 'application/octet-stream' },
    ],
  });
  await env.settled();
  const received = await eventually(async () => {
    const list = await env.ph.request('GET', '/v1/inbound/emails');
    const id = list.body.data[0]?.id;
    if (!id) return undefined;
    const detail = await env.ph.request('GET', `/v1/inbound/emails/${id}`);
    const states = detail.body.attachments.map((a: { scan_state: string }) => a.scan_state);
    return states.length === 2 && !states.includes('pending') ? detail.body : undefined;
  }, 20_000);

  const { page } = await openPage(t, browser, { viewport: DESKTOP, acceptDownloads: true });
  await page.goto(`${env.ph.url}/inbound`);
  await signInByPassword(page, 'owner@example.test', 'correct horse battery staple', 'Inbound');
  await page.getByRole('link', { name: 'Delivery notes' }).click();
  await page.getByRole('heading', { level: 1, name: 'Delivery notes' }).waitFor();

  const auth = page.getByRole('table', { name: 'Authentication results' });
  const spf = auth.getByRole('row').filter({ hasText: 'SPF' });
  t.is((await spf.locator('.badge').textContent()) ?? '', received.auth.spf.result);
  await auth.getByRole('row').filter({ hasText: 'DMARC' }).waitFor();

  const files = page.getByRole('table', { name: 'Attachments' });
  const infected = files.getByRole('row').filter({ hasText: 'eicar.com' });
  t.is((await infected.locator('.badge').textContent()) ?? '', 'infected');
  t.regex((await infected.locator('.hint').textContent()) ?? '', /eicar/i);
  t.is(await infected.getByRole('button').count(), 0, 'an infected file offers no download');
  const [downloaded] = await Promise.all([
    page.waitForEvent('download'),
    files.getByRole('button', { name: 'Download notes.txt' }).click(),
  ]);
  t.is(downloaded.suggestedFilename(), 'notes.txt');
  const chunks: Buffer[] = [];
  for await (const chunk of await downloaded.createReadStream()) chunks.push(chunk as Buffer);
  t.true(Buffer.concat(chunks).equals(NOTE), 'the clean file, byte for byte');

  const thread = page.getByRole('table', { name: 'Messages of the thread, oldest first' });
  t.is(await thread.getByRole('row').count(), 2, 'a header and the received message');
  await checkPage(t, page, 'inbound-message');

  await page.getByLabel('Reply from').fill(`Support <support@${DOMAIN}>`);
  await page.getByLabel('Reply text').fill('Thank you, both boxes are booked.');
  await page.getByRole('button', { name: 'Send reply' }).click();
  await page.getByText('Reply queued.').waitFor();
  const reply = thread.getByRole('row').filter({ hasText: 'Re: Delivery notes' });
  await reply.waitFor();
  t.regex((await reply.textContent()) ?? '', /buyer@sender\.example/);
  const after = await env.ph.request('GET', `/v1/inbound/threads/${received.thread_id}`);
  t.deepEqual(
    after.body.messages.map((m: { direction: string }) => m.direction),
    ['inbound', 'outbound'],
    'one reply, in the thread',
  );
  await reply.getByRole('link', { name: 'Re: Delivery notes' }).click();
  await page.getByRole('heading', { level: 1, name: 'Re: Delivery notes' }).waitFor();
});
