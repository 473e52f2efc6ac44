/**
 * The dashboard's pages for the later capabilities, in a real browser (Debian's chromium through
 * playwright-core) against the real server with its delivery engine, a real DNS server and a real
 * SMTP server on loopback (the MX of example.net): contacts imported from a CSV file with the
 * refused rows reported, a broadcast sent from its page and followed to delivered, a contact's
 * consent history after a one-click unsubscribe, the tracking
 * figures (people's opens, machine opens left out), another broadcast
 * scheduled then cancelled, the system status with an open incident and a maintenance window, a
 * dedicated IP asked for, an agent's send rejected with a note, the approval policy trusting a connected application, and keyboard
 * use (skip link, visible focus, navigation, focus on the new heading, a form sent with Enter);
 * then an audience, a template and a domain deleted and a scheduled send cancelled from their pages;
 * the message history paged and sorted.
 * One browser and one server; every page passes axe-core and fits 1280 px and 390 px.
 */
import test from 'ava';
import { simpleParser } from 'mailparser';
import type { Page } from 'playwright-core';
import { audienceWith, headersOf } from '../broadcasts/env.js';
import { eventually, mx, send, settled, startDeliveryEnv } from '../delivery/env.js';
import { openPage, sharedBrowser, signInByPassword } from '../helpers/dashboard-page.js';
import { connect, discover, onFreePort, register, signIn } from '../oauth/env.js';
import { APPLE_PROXY, CHROME } from '../tracking/env.js';
import { checkPage, DESKTOP, open } from './pages.js';

const OWNER = 'owner@example.test';
const PASSWORD = 'correct horse battery staple'; // the one signIn() sets

const browser = sharedBrowser();

/** The figure of a `.stat` by its label, as the person reads it. */
async function stat(page: Page, label: string): Promise<string> {
  const value = page.locator('.stat', { has: page.getByText(label, { exact: true }) }).locator('.stat-value');
  return ((await value.textContent()) ?? '').trim();
}

test('a person imports contacts from a file, sends a broadcast and watches it delivered, reads a contact’s history, reads opens by people apart from machines, schedules and cancels another, reads the system status, asks for a dedicated IP, rejects an agent’s send with a note, trusts a connected application, gets around by keyboard alone, deletes and cancels from the pages, and pages and sorts the message history', async (t) => {
  t.timeout(180_000);
  const env = await onFreePort({ tracking: { scanner_window: '1s' } }, (config) =>
    startDeliveryEnv(t, { config }),
  );
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  const session = await signIn(env.ph); // sets the owner's password
  const audienceId = await audienceWith(env, [
    { email: 'ann@example.net', first_name: 'Ann' },
    { email: 'bob@example.net', first_name: 'Bob' },
    { email: 'cy@example.net' },
  ]);
  for (const name of ['November news', 'December news']) {
    const created = await env.ph.request('POST', '/v1/broadcasts', {
      body: {
        name,
        audience_id: audienceId,
        from: 'Acme News <news@acme.test>',
        subject: `${name} for {{first_name}}`,
        html: '<p>Hello {{first_name}}</p>',
      },
    });
    t.is(created.status, 201, created.text);
  }

  const { page } = await openPage(t, browser(), { viewport: DESKTOP });
  await page.goto(`${env.ph.url}/audiences`);
  await signInByPassword(page, OWNER, PASSWORD, 'Audiences');

  // Import: two good rows, one without consent, one not an address; the report names the refused.
  await page.getByRole('link', { name: 'Newsletter' }).click();
  await page.getByRole('heading', { level: 1, name: 'Newsletter' }).waitFor();
  await page.getByText('Import contacts from a file').click();
  await page.getByLabel('CSV or JSON-lines file').setInputFiles({
    name: 'contacts.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(
      [
        'email,first_name,consent_source,consent_at,plan',
        'dee@example.net,Dee,webinar sign-up,2026-03-01T10:00:00Z,pro',
        'eve@example.net,Eve,webinar sign-up,2026-03-01T10:05:00Z,free',
        'fay@example.net,Fay,,,free',
        'not-an-address,Gus,webinar sign-up,2026-03-01T10:06:00Z,free',
      ].join('\n'),
    ),
  });
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  const report = page.getByRole('region', { name: 'Import report' });
  await report.getByRole('status').waitFor();
  t.is((await report.getByRole('status').textContent()) ?? '', '4 rows read: 2 added, 0 updated, 2 refused.');
  const refused = report.getByRole('row');
  t.is(await refused.count(), 3, 'a header and the two refused rows');
  t.regex((await refused.nth(1).textContent()) ?? '', /^4fay@example\.net.*consent/i);
  t.regex((await refused.nth(2).textContent()) ?? '', /^5not-an-address/);
  await page.getByRole('cell', { name: 'dee@example.net', exact: true }).waitFor();
  await page.getByRole('cell', { name: 'eve@example.net', exact: true }).waitFor();
  await checkPage(t, page, 'audience-import');

  // A broadcast sent from its page: the progress follows it to the five subscribers' MX.
  await open(page, 'Broadcasts');
  await page.getByRole('link', { name: 'November news' }).click();
  await page.getByRole('heading', { level: 1, name: 'November news' }).waitFor();
  await page.getByRole('link', { name: 'Newsletter' }).waitFor(); // the audience, named and linked
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('button', { name: 'Send now' }).click();
  await page.getByText('5 of 5 messages queued').waitFor({ timeout: 30_000 });
  await page
    .locator('.stat', { has: page.getByText('Delivered', { exact: true }) })
    .getByText('5', { exact: true })
    .waitFor({ timeout: 30_000 });
  t.is(await stat(page, 'Recipients'), '5');
  t.is(await stat(page, 'Sent'), '5');
  t.is(await stat(page, 'Bounced'), '0');
  await page.locator('.facts .badge', { hasText: 'sent' }).waitFor();
  t.is((await page.getByRole('progressbar').getAttribute('value')) ?? '', '5');
  await env.peer.waitFor(5, 10_000);
  t.deepEqual(
    env.peer.messages
      .slice(0, 5)
      .flatMap((m) => m.rcptTo)
      .sort(),
    ['ann@example.net', 'bob@example.net', 'cy@example.net', 'dee@example.net', 'eve@example.net'],
    'each subscriber with consent got it; the refused rows did not',
  );
  await checkPage(t, page, 'broadcast');

  // Ann leaves by the one-click link of her copy (RFC 8058, as her mailbox provider would post
  // it); her contact page tells her history, and her names are edited there.
  const annCopy = env.peer.messages.find((m) => m.rcptTo[0] === 'ann@example.net');
  const unsubscribe = /<(https?:\/\/[^>]+)>/.exec(
    headersOf(annCopy?.data as Buffer).get('list-unsubscribe') ?? '',
  )?.[1];
  t.truthy(unsubscribe, 'the broadcast carries a one-click unsubscribe URL');
  const left = await fetch(`${env.ph.url}${new URL(unsubscribe as string).pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  });
  t.is(left.status, 200);
  await open(page, 'Audiences');
  await page.getByRole('link', { name: 'Newsletter' }).click();
  await page.getByRole('link', { name: 'ann@example.net' }).click();
  await page.getByRole('heading', { level: 1, name: 'ann@example.net' }).waitFor();
  const history = page.getByRole('table', { name: 'Consent history, oldest first' }).getByRole('row');
  await history.nth(2).waitFor();
  t.is(await history.count(), 3, 'a header, the subscription and the unsubscription');
  t.regex((await history.nth(1).textContent()) ?? '', /subscribed.*signup form/);
  t.regex((await history.nth(2).textContent()) ?? '', /unsubscribed.*one click.*bc_/);
  t.is((await page.locator('.facts .badge').first().textContent()) ?? '', 'unsubscribed');
  await page.getByLabel('Last name').fill('Archer');
  await page.getByRole('button', { name: 'Save names' }).click();
  await page.getByText('Names saved.').waitFor();
  const ann = await env.ph.request('GET', `/v1/audiences/${audienceId}/contacts/ann@example.net`);
  t.like(ann.body, { first_name: 'Ann', last_name: 'Archer', status: 'unsubscribed' });
  await checkPage(t, page, 'contact');

  // Tracking figures: a receipt opened once by Apple's proxy and once by a person; the analytics and
  // tracking pages count the person and say how many machine opens they left out.
  const on = await env.ph.request('PUT', '/v1/tracking', {
    body: { opens_enabled: true, clicks_enabled: false, retention_days: 30 },
  });
  t.is(on.status, 200, on.text);
  const receipt = await send(env, {
    to: ['ann@example.net'],
    subject: 'Your receipt',
    html: '<p>Thank you for your order.</p>',
    text: 'Thank you for your order.',
  });
  const [, , , , , received] = await env.peer.waitFor(6, 30_000);
  t.is(await settled(env.ph, receipt), 'delivered');
  const pixel = /\/v1\/track\/open\/[^"'\s]+/.exec(
    ((await simpleParser(received?.data as Buffer)).html as string) ?? '',
  )?.[0];
  t.truthy(pixel, 'the delivered HTML carries the open pixel');
  const fetchPixel = (agent: string) =>
    fetch(`${env.ph.url}${pixel}`, { headers: { 'User-Agent': agent } }).then((r) => r.status);
  t.is(await fetchPixel(APPLE_PROXY), 200);
  await new Promise((resolve) => setTimeout(resolve, 1500)); // past the scanner window
  t.is(await fetchPixel(CHROME), 200);
  await eventually(
    'the two opens in analytics',
    async () => {
      const report = await env.ph.request('GET', '/v1/analytics?days=1');
      return report.body.unique_opens === 1 && report.body.machine_opens === 1;
    },
    20_000,
  );
  await open(page, 'Analytics');
  t.is(await stat(page, 'Unique opens'), '1');
  t.is(await stat(page, 'Machine opens left out'), '1');
  await open(page, 'Tracking');
  t.is(await stat(page, 'Opened by people'), '1');
  t.is(await stat(page, 'Machine opens left out'), '1');
  t.is(await stat(page, 'Delivered'), '6');
  await checkPage(t, page, 'tracking-figures');

  // Another, scheduled for tomorrow from its page, then cancelled.
  await open(page, 'Broadcasts');
  await page.getByRole('link', { name: 'December news' }).click();
  await page.getByRole('heading', { level: 1, name: 'December news' }).waitFor();
  const tomorrow = new Date(Date.now() + 86_400_000);
  const local = new Date(tomorrow.getTime() - tomorrow.getTimezoneOffset() * 60_000)
    .toISOString()
    .slice(0, 16);
  await page.getByLabel('Send at (your local time)').fill(local);
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  await page.locator('.facts .badge', { hasText: 'scheduled' }).waitFor();
  const scheduled = await env.ph.request('GET', '/v1/broadcasts?status=scheduled');
  t.is(scheduled.body.data.length, 1);
  t.true(
    Math.abs(Date.parse(scheduled.body.data[0].send_at) - tomorrow.getTime()) < 60_000,
    'send_at is the time chosen',
  );
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('button', { name: 'Cancel broadcast', exact: true }).click();
  await page.locator('.facts .badge', { hasText: 'cancelled' }).waitFor();

  // System status: an incident an operator opened and a maintenance window, as the status area has them.
  const incidents = env.ph.server.services.status.incidents;
  const incident = await incidents.open({
    title: 'Delays to example.net',
    components: ['delivery'],
    impact: 'degraded',
    message: 'Mail to example.net is accepted slowly.',
  });
  await incidents.update(incident.incident.id, 'identified', 'Their MX limits connections; we slowed down.');
  await incidents.scheduleMaintenance({
    title: 'Database upgrade',
    components: ['database'],
    startsAt: Date.now() + 3_600_000,
    endsAt: Date.now() + 7_200_000,
    message: 'A short pause in the API.',
  });
  await open(page, 'Status', 'System status');
  const card = page.getByRole('article', { name: 'Incident: Delays to example.net' });
  await card.getByText('Their MX limits connections; we slowed down.').waitFor();
  await card.getByText('Mail to example.net is accepted slowly.').waitFor();
  t.is((await card.locator('.card-header .badge').textContent()) ?? '', 'identified');
  t.is(
    (await page.getByRole('row').filter({ hasText: 'Delivery' }).locator('.badge').first().textContent()) ??
      '',
    'degraded',
  );
  await page.getByRole('article', { name: 'Maintenance: Database upgrade' }).waitFor();
  await page.getByRole('table', { name: 'Incident history' }).getByText('Delays to example.net').waitFor();
  await checkPage(t, page, 'status');

  // A dedicated IP asked for from the reputation page: pending until an operator reviews it.
  await open(page, 'Reputation');
  await page.getByLabel('Messages per month').fill('250000');
  await page.getByLabel('Why the project needs its own IP').fill('Our own reputation for receipts.');
  await page.getByRole('button', { name: 'Ask for a dedicated IP' }).click();
  const request = page.getByRole('table', { name: 'Dedicated IP requests' }).getByRole('row').nth(1);
  await request.getByText('pending').waitFor();
  t.regex((await request.textContent()) ?? '', /250,000Our own reputation for receipts\./);
  t.is(
    await page.getByRole('button', { name: 'Ask for a dedicated IP' }).count(),
    0,
    'one request at a time',
  );
  const ips = await env.ph.request('GET', '/v1/reputation');
  t.is(ips.body.dedicated_ips.requests[0].status, 'pending');
  await checkPage(t, page, 'reputation-dedicated-ip');

  // The approval policy: a connected application trusted from the agent-sends page sends at once.
  const { as } = await discover(env.ph);
  const agent = await register({ as }, { client_name: 'Billing agent' });
  const tokens = await connect(
    { ph: env.ph, session, as, issuer: new URL(env.ph.url) },
    agent,
    'emails:send',
  );
  const mail = { from: 'Acme <billing@acme.test>', to: ['ann@example.net'], text: 'Your invoice.' };
  const held = await env.ph.request('POST', '/v1/emails', {
    key: tokens.access_token,
    body: { ...mail, subject: 'Invoice 1' },
  });
  t.is(held.body.status, 'awaiting_approval', 'held before the client is trusted');
  await open(page, 'Agent sends');
  // The held send is rejected with a note for the application: never sent, rejected with the note.
  const heldCard = page.getByRole('article', { name: 'Send by Billing agent: Invoice 1' });
  await heldCard.getByRole('button', { name: 'Reject…' }).click();
  await heldCard.getByLabel('Note for the application (optional)').fill('Wrong amount; ask me again.');
  await heldCard.getByRole('button', { name: 'Reject', exact: true }).click();
  await page.getByText('Nothing awaits approval.').waitFor();
  const rejected = await env.ph.request('GET', '/v1/dashboard/send-approvals?status=rejected', {
    key: session,
  });
  t.like(rejected.body.data[0], { status: 'rejected', note: 'Wrong amount; ask me again.' });
  t.is((await env.ph.request('GET', `/v1/emails/${held.body.id}`)).body.status, 'rejected');
  const policy = page.getByRole('form', { name: 'Approval policy' });
  t.true(await policy.getByLabel("Sends by connected applications wait for a member's approval").isChecked());
  await policy.getByLabel('Trust Billing agent').check();
  await policy.getByRole('button', { name: 'Save policy' }).click();
  await policy.getByText('Policy saved.').waitFor();
  await checkPage(t, page, 'approvals-policy');
  const trusted = await env.ph.request('POST', '/v1/emails', {
    key: tokens.access_token,
    body: { ...mail, subject: 'Invoice 2' },
  });
  t.is(trusted.status, 202, trusted.text);
  t.not(trusted.body.status, 'awaiting_approval', 'a trusted client’s send is not held');
  await env.peer.waitFor(7, 10_000);
  t.truthy(
    env.peer.messages.find((m) => m.data.toString().includes('Subject: Invoice 2')),
    'the trusted send reached the MX',
  );

  // Keyboard only: the skip link comes first and shows its focus; the main navigation is reached
  // by Tab and followed by Enter, which puts focus on the new page's heading; a form is filled and
  // sent without the mouse.
  await page.reload();
  await page.getByRole('heading', { level: 1, name: 'Agent sends' }).waitFor();
  await page.keyboard.press('Tab');
  t.is(await focused(page), 'a:Skip to content');
  const ring = await page.evaluate<{ style: string; width: number }>(`(() => {
    const style = getComputedStyle(document.activeElement);
    return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
  })()`);
  t.is(ring.style, 'solid', 'focus is visible');
  t.true(ring.width >= 2, 'the focus ring is at least 2 px');
  await page.keyboard.press('Enter');
  t.is(await focused(page), 'main:', 'the skip link moves focus to the content');
  await page.keyboard.press('Shift+Tab');
  let reached = '';
  for (let i = 0; i < 60 && reached !== 'a:Audiences'; i++) {
    await page.keyboard.press('Shift+Tab');
    reached = await focused(page);
  }
  t.is(reached, 'a:Audiences', 'the navigation is reachable by keyboard');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Audiences' }).waitFor();
  t.is(await focused(page), 'h1:Audiences', 'focus lands on the new page’s heading');
  await page.keyboard.press('Tab');
  t.is(await focused(page), 'input:', 'the first control of the page follows');
  await page.keyboard.type('Keyboard list');
  await page.keyboard.press('Enter');
  await page.getByRole('link', { name: 'Keyboard list' }).waitFor();
  await checkPage(t, page, 'audiences');

  // What can be undone is undone from its page: an audience deleted, a scheduled send cancelled, a
  // template and a domain deleted, each after a confirmation.
  await page.getByRole('link', { name: 'Keyboard list' }).click();
  await page.getByRole('heading', { level: 1, name: 'Keyboard list' }).waitFor();
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('button', { name: 'Delete audience Keyboard list' }).click();
  await page.getByRole('heading', { level: 1, name: 'Audiences' }).waitFor();
  await page.getByRole('link', { name: 'Keyboard list' }).waitFor({ state: 'detached' });

  const later = await env.ph.request('POST', '/v1/emails', {
    body: {
      from: 'Acme <hello@acme.test>',
      to: ['ann@example.net'],
      subject: 'Tomorrow’s reminder',
      text: 'See you.',
      send_at: new Date(Date.now() + 86_400_000).toISOString(),
    },
  });
  t.is(later.status, 202, later.text);
  t.is(later.body.status, 'scheduled');
  await page.goto(`${env.ph.url}/messages/${later.body.id}`);
  await page.getByRole('heading', { level: 1, name: 'Tomorrow’s reminder' }).waitFor();
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('button', { name: 'Cancel scheduled send' }).click();
  await page.locator('.page-header .badge', { hasText: 'cancelled' }).waitFor();
  await page.locator('.tl-what', { hasText: 'Cancelled' }).first().waitFor();
  t.is(await page.getByRole('button', { name: 'Cancel scheduled send' }).count(), 0);
  t.is((await env.ph.request('GET', `/v1/emails/${later.body.id}`)).body.status, 'cancelled');

  const template = await env.ph.request('POST', '/v1/templates', {
    body: { name: 'Old receipt', subject: 'Receipt', html_body: '<p>Thanks</p>', variables: [] },
  });
  t.is(template.status, 201, template.text);
  await page.goto(`${env.ph.url}/templates/${template.body.id}`);
  await page.getByRole('heading', { level: 1, name: 'Old receipt' }).waitFor();
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('button', { name: 'Delete template Old receipt' }).click();
  await page.getByRole('heading', { level: 1, name: 'Templates' }).waitFor();
  t.is((await env.ph.request('GET', `/v1/templates/${template.body.id}`)).status, 404);

  const old = await env.ph.request('POST', '/v1/domains', { body: { name: 'old-brand.test' } });
  t.is(old.status, 201, old.text);
  await open(page, 'Domains');
  const oldCard = page.getByRole('region', { name: 'old-brand.test', exact: true });
  await oldCard.waitFor();
  page.once('dialog', (dialog) => dialog.accept());
  await oldCard.getByRole('button', { name: 'Delete old-brand.test' }).click();
  await oldCard.waitFor({ state: 'detached' });
  await page.getByRole('region', { name: 'acme.test', exact: true }).waitFor();
  t.is((await env.ph.request('GET', `/v1/domains/${old.body.id}`)).status, 404);

  // The message history past one page, and sorted by a column both ways.
  const batch = await env.ph.request('POST', '/v1/emails/batch', {
    body: {
      emails: Array.from({ length: 20 }, (_, i) => ({
        from: 'Acme <hello@acme.test>',
        to: [`reader${i}@example.net`],
        subject: `Digest ${String(i).padStart(2, '0')}`,
        text: 'Your digest.',
        send_at: new Date(Date.now() + 86_400_000).toISOString(),
      })),
    },
  });
  t.is(batch.status, 202, batch.text);
  await open(page, 'Messages');
  const pager = page.getByRole('navigation', { name: 'Pages' });
  await pager.getByText(/^Page 1 of 2 · \d+ in all$/).waitFor({ timeout: 20_000 });
  const total = Number(/(\d+) in all/.exec((await pager.textContent()) ?? '')?.[1]);
  t.true(total >= 29, `every message is counted (${total})`);
  t.is(await page.locator('tbody tr').count(), 25);
  await pager.getByRole('button', { name: 'Next' }).click();
  await pager.getByText(/^Page 2 of 2/).waitFor();
  t.is(await page.locator('tbody tr').count(), total - 25);
  const subjects = () => page.locator('tbody tr td:nth-child(2)').allTextContents();
  await page.getByRole('button', { name: 'Subject' }).click();
  await page.locator('th[aria-sort="descending"]', { hasText: 'Subject' }).waitFor();
  await pager.getByText(/^Page 1 of 2/).waitFor();
  const descending = await subjects();
  t.deepEqual(descending, [...descending].sort().reverse(), 'subjects Z to A');
  await page.getByRole('button', { name: 'Subject' }).click();
  await page.locator('th[aria-sort="ascending"]', { hasText: 'Subject' }).waitFor();
  // The header turns at the click; the rows only once the page of the new order has arrived.
  let ascending = await subjects();
  for (const deadline = Date.now() + 10_000; ascending[0] === descending[0] && Date.now() < deadline; )
    ascending = await new Promise<string[]>((resolve) => setTimeout(() => resolve(subjects()), 100));
  t.deepEqual(ascending, [...ascending].sort(), 'subjects A to Z');
  t.regex(page.url(), /sort=subject/);
  t.regex(page.url(), /order=asc/);
});

/** The focused element as `tag:text` (text trimmed; empty for inputs and containers with children). */
function focused(page: Page): Promise<string> {
  return page.evaluate<string>(`(() => {
    const el = document.activeElement;
    if (!el) return '';
    const tag = el.tagName.toLowerCase();
    const text = tag === 'a' || tag === 'button' || /^h[1-6]$/.test(tag) ? el.textContent.trim() : '';
    return tag + ':' + text;
  })()`);
}
