/**
 * The dashboard in a real browser (Debian's chromium through playwright-core) against the real
 * server, with a real SMTP server on loopback as the MX of example.test (the sign-in codes are
 * read from the mail it received) and a real DNS server on loopback (domain verification). TOTP
 * codes come from python3-pyotp. One browser and one server walk every page a person uses; every
 * page passes axe-core and fits 1280 px and 390 px.
 */
import test from 'ava';
import * as oauth from 'oauth4webapi';
import { newId } from '../../src/platform/ids.js';
import { codeIn, pyotpCode, receivedMail, startAccountsEnv } from '../accounts/env.js';
import { openPage, sharedBrowser, signInByCode } from '../helpers/dashboard-page.js';
import { authorizationUrl, discover, insecure, onFreePort, REDIRECT, register } from '../oauth/env.js';
import { startReceiver } from '../webhooks/receiver.js';
import { checkPage, DESKTOP, open } from './pages.js';

const OWNER = 'owner@example.test';
const PASSWORD = 'a long enough dashboard password';

const browser = sharedBrowser();

test('a person signs in by code, finds a message sent through the API and reads its timeline, verifies a domain, switches projects, replays a webhook delivery, manages every page, consents to an agent and approves its send, turns on TOTP, signs out and back in with password and TOTP, then with a recovery code once', async (t) => {
  t.timeout(180_000);
  const env = await onFreePort({ webhooks: { allow_http: true, allow_private_targets: true } }, (config) =>
    startAccountsEnv(t, config),
  );
  const receiver = await startReceiver(t);
  const read = async (n: number) => codeIn(await receivedMail(env, n));
  const { context, page } = await openPage(t, browser(), { viewport: DESKTOP });

  // Signed out, every page is the sign-in page, and it passes the checks too.
  await page.goto(`${env.ph.url}/domains`);
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await checkPage(t, page, 'sign-in');

  // Sign in by the code mailed through the pipeline to the loopback MX.
  // Signed in, the person is on the page they asked for.
  await signInByCode(page, OWNER, () => read(1), 'Domains');
  const cookies = await context.cookies();
  const session = cookies.find((c) => c.name === 'ph_session');
  t.truthy(session, 'the session cookie is set');
  t.true(session?.httpOnly, 'HttpOnly');
  t.is(session?.sameSite, 'Strict');
  t.regex(session?.value ?? '', /^phs_/);
  t.false((await page.evaluate<string>('document.cookie')).includes('phs_'), 'script cannot read the token');
  await open(page, 'Messages');
  await checkPage(t, page, 'messages-empty');
  // A page that does not exist says so, inside the dashboard, and passes the checks too.
  await page.goto(`${env.ph.url}/no-such-page`);
  await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
  await checkPage(t, page, 'not-found');

  // Webhooks: an endpoint for every event; its secret is shown once.
  await open(page, 'Webhooks');
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await page.getByLabel('URL').fill(receiver.url);
  await page.getByRole('button', { name: 'Add endpoint' }).last().click();
  const secret = page.locator('code.secret');
  await secret.waitFor();
  t.regex((await secret.textContent()) ?? '', /^whsec_/);
  await page.getByRole('button', { name: 'I have copied it' }).click();
  await checkPage(t, page, 'webhooks');

  // Domains: add one, publish its records on the loopback DNS server, verify from the page.
  await open(page, 'Domains');
  await checkPage(t, page, 'domains-empty');
  await page.getByRole('button', { name: 'Add domain' }).click();
  await page.getByLabel('Domain name').fill('brand.test');
  await page.getByRole('button', { name: 'Add domain' }).last().click();
  const card = page.getByRole('region', { name: 'brand.test', exact: true });
  await card.waitFor();
  t.is((await card.locator('.card-header .badge').textContent()) ?? '', 'pending');
  const listed = await env.ph.request('GET', '/v1/domains');
  const domain = listed.body.data.find((d: { name: string }) => d.name === 'brand.test');
  for (const record of domain.records as {
    type: string;
    host: string;
    value: string;
    value_strings?: string[];
  }[])
    if (record.type === 'TXT') env.dns.set(record.host, 'TXT', [record.value_strings ?? record.value]);
  await card.getByRole('button', { name: 'Verify DNS of brand.test' }).click();
  await card.locator('.card-header .badge', { hasText: 'verified' }).waitFor();
  await checkPage(t, page, 'domains');

  // The project switcher: a second project of the organization (made as an operator would, in the
  // store: no route creates projects) shows its own, empty, domains; switching back shows brand.test.
  const now = Date.now();
  await env.ph.server.kernel.db
    .insertInto('projects')
    .values({
      id: newId('prj', now),
      organization_id: env.ph.owner.organizationId,
      name: 'Staging',
      status: 'sandbox',
      created_at: now,
      updated_at: now,
    })
    .execute();
  await page.reload();
  await card.waitFor();
  await page.getByLabel('Project').selectOption({ label: 'Staging (sandbox)' });
  await page.getByText('No domains yet.').waitFor();
  await page.getByLabel('Project').selectOption({ label: 'Test (active)' });
  await card.waitFor();

  // A message sent through the API is deferred once by the MX, then delivered, and shows in the
  // webhook's delivery log.
  env.peer.rcptReply(OWNER, 450, '4.2.1 Mailbox busy, try again later', { times: 1 });
  const sent = await env.ph.request('POST', '/v1/emails', {
    body: {
      from: env.ph.config.sandbox.from,
      to: [OWNER],
      subject: 'Dashboard test message',
      html: `<p style="color:#333">Hello from <b>Posthorn</b></p><img src="http://127.0.0.1:${receiver.port}/pixel.gif" alt="">`,
      text: 'Hello from Posthorn',
    },
  });
  t.is(sent.status, 202, sent.text);
  await env.peer.waitFor(2, 10_000);

  // Messages: found by search, its detail with the recipient's timeline, the HTML in a sandbox.
  await open(page, 'Messages');
  await page.getByRole('searchbox', { name: 'Search' }).fill('dashboard test');
  await page.getByRole('button', { name: 'Search' }).click();
  const link = page.getByRole('link', { name: 'Dashboard test message' });
  await link.waitFor();
  t.is(await page.locator('tbody tr').count(), 1, 'the search finds the one message');
  await checkPage(t, page, 'messages');
  await link.click();
  await page.getByRole('heading', { level: 1, name: 'Dashboard test message' }).waitFor();
  const recipient = page.getByRole('article', { name: `Recipient ${OWNER}` });
  for (
    let i = 0;
    i < 50 && !(await recipient.locator('.tl-what', { hasText: 'Delivered' }).isVisible());
    i++
  ) {
    await page.waitForTimeout(200);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Dashboard test message' }).waitFor();
  }
  await recipient.locator('.tl-what', { hasText: 'Queued' }).waitFor();
  const deferred = recipient.locator('li', { has: page.locator('.tl-what', { hasText: 'Deferred' }) });
  t.regex((await deferred.locator('.tl-note').textContent()) ?? '', /answered: 450 4\.2\.1 Mailbox busy/);
  await recipient.locator('.tl-what', { hasText: 'Delivered' }).waitFor();
  const preview = page.frameLocator('iframe.preview');
  await preview.getByText('Hello from').waitFor();
  t.is((await preview.locator('b').textContent()) ?? '', 'Posthorn');
  await checkPage(t, page, 'message');
  // The image points at a loopback server that records every request: the preview's CSP kept it away.
  t.false(
    receiver.received.some((r) => /Chrome/.test(String(r.headers['user-agent']))),
    'the preview loads no remote image',
  );

  await open(page, 'Webhooks');
  await page.getByRole('link', { name: receiver.url }).click();
  await page.getByRole('heading', { level: 2, name: 'Deliveries' }).waitFor();
  const delivered = page.getByRole('row').filter({ hasText: 'domain.created' }).first();
  for (let i = 0; i < 50 && !(await delivered.getByText('succeeded').isVisible()); i++) {
    await page.waitForTimeout(200);
    await page.getByRole('button', { name: 'Refresh' }).click();
  }
  await delivered.getByText('succeeded').waitFor();
  const before = receiver.received.length;
  await delivered.getByRole('button', { name: /^Details of attempt/ }).click();
  await page.locator('.attempt pre.code').first().waitFor();
  t.true(
    ((await page.locator('.attempt pre.code').first().textContent()) ?? '').includes(
      '"type": "domain.created"',
    ),
  );
  await checkPage(t, page, 'webhook-deliveries');
  await delivered.getByRole('button', { name: /^Replay domain.created/ }).click();
  await page.getByRole('row').filter({ hasText: 'replay' }).first().waitFor();
  await receiver.waitFor(before + 1);
  const replayed = receiver.received.slice(before).find((r) => r.body.includes('"domain.created"'));
  t.truthy(replayed, 'the replayed payload reached the endpoint');

  // Suppressions: add, look up, remove.
  await open(page, 'Suppressions');
  await page
    .getByRole('form', { name: 'Suppress an address' })
    .getByLabel('Email address')
    .fill('blocked@example.org');
  await page.getByRole('button', { name: 'Suppress' }).click();
  await page.getByRole('cell', { name: 'blocked@example.org', exact: true }).waitFor();
  await page
    .getByRole('form', { name: 'Look up an address' })
    .getByLabel('Email address')
    .fill('blocked@example.org');
  await page.getByRole('button', { name: 'Look up' }).click();
  await page.getByRole('status').getByText('is suppressed').waitFor();
  await checkPage(t, page, 'suppressions');
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('button', { name: 'Remove blocked@example.org' }).click();
  await page.getByText('No suppressed addresses.').waitFor();

  // Templates: a draft, its check, publish, a second version, rollback.
  await open(page, 'Templates');
  await page.getByRole('button', { name: 'New template' }).click();
  await page.getByLabel('Name').fill('Welcome');
  await page.getByLabel('Subject').fill('Welcome, {{name}}');
  await page
    .getByLabel('HTML body')
    .fill('<p>Hello {{name}}, <a href="https://example.com/start">start here</a></p>');
  await page.getByLabel('Variables').fill('name');
  await page.getByRole('button', { name: 'Save draft' }).click();
  await page.getByRole('heading', { level: 1, name: 'Welcome' }).waitFor();
  await page.getByRole('button', { name: 'Check draft' }).click();
  await page.getByRole('heading', { name: /Check of v1/ }).waitFor();
  await page.getByRole('button', { name: 'Publish v1' }).click();
  await page.getByText('Sends use v1.').waitFor();
  await page
    .getByRole('form', { name: 'Edit the draft' })
    .getByLabel('Subject')
    .fill('Welcome aboard, {{name}}');
  await page.getByRole('button', { name: 'Save as a new version' }).click();
  await page.getByRole('button', { name: 'Publish v2' }).click();
  await page.getByText('Sends use v2.').waitFor();
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('button', { name: 'Roll back to v1' }).click();
  await page.getByText('Sends use v1.').waitFor();
  await checkPage(t, page, 'template');
  await open(page, 'Templates');
  await checkPage(t, page, 'templates');

  await open(page, 'Analytics');
  await page.locator('.stat').first().waitFor();
  await checkPage(t, page, 'analytics');

  // API keys: created and shown once, then revoked.
  await open(page, 'API keys');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByLabel('Name').fill('CI');
  await page.getByRole('button', { name: 'Create key' }).last().click();
  const key = (await page.locator('code.secret').textContent()) ?? '';
  t.regex(key, /^ph_live_/);
  t.is((await env.ph.request('GET', '/v1/domains', { key })).status, 200, 'the key shown works');
  await page.getByRole('button', { name: 'I have copied it' }).click();
  await checkPage(t, page, 'api-keys');
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('button', { name: 'Revoke CI' }).click();
  await page.getByRole('row').filter({ hasText: 'CI' }).getByText('revoked').waitFor();
  t.is((await env.ph.request('GET', '/v1/domains', { key })).status, 401, 'the revoked key stops working');

  // Members: an analyst invited (the invitation is mail number 3).
  await open(page, 'Members');
  await page.getByLabel('Email').fill('analyst@example.test');
  await page.getByLabel('Role', { exact: true }).selectOption('analyst');
  await page.getByRole('button', { name: 'Invite' }).click();
  await page.getByRole('cell', { name: 'analyst@example.test', exact: true }).waitFor();
  await checkPage(t, page, 'members');
  await env.peer.waitFor(3, 10_000);

  // An agent connects through OAuth on the consent screen, sends, and a person approves the send.
  const { as } = await discover(env.ph);
  const agent = await register({ as }, { client_name: 'Support agent' });
  const authorization = await authorizationUrl({ as }, agent.client, 'emails:send');
  t.true(authorization.url.href.startsWith(`${env.ph.url}/authorize?`), 'the consent page is the dashboard');
  let callback: URL | undefined;
  await page.route(`${REDIRECT}**`, (route) => {
    callback = new URL(route.request().url());
    return route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the application' });
  });
  await page.goto(authorization.url.href);
  await page.getByRole('heading', { level: 1, name: 'Authorize an application' }).waitFor();
  await page.getByText('Support agent').waitFor();
  t.true(await page.getByRole('listitem').filter({ hasText: 'emails:send' }).isVisible());
  await checkPage(t, page, 'oauth-consent');
  // The consent screen's error states pass the checks too: an unknown client, and no request at all.
  const unknownClient = new URL(authorization.url.href);
  unknownClient.searchParams.set('client_id', 'phc_unknown');
  await page.goto(unknownClient.href);
  await page.getByRole('heading', { level: 1, name: 'Authorize an application' }).waitFor();
  await page.getByRole('alert').waitFor();
  await checkPage(t, page, 'oauth-consent-unknown-client');
  await page.goto(`${env.ph.url}/authorize`);
  await page.getByRole('alert').waitFor();
  await checkPage(t, page, 'oauth-consent-no-request');
  await page.goto(authorization.url.href);
  await page.getByText('Support agent').waitFor();
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.getByText('back at the application').waitFor();
  const params = oauth.validateAuthResponse(as, agent.client, callback as URL, authorization.state);
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    agent.client,
    await oauth.authorizationCodeGrantRequest(
      as,
      agent.client,
      agent.auth,
      params,
      REDIRECT,
      authorization.verifier,
      insecure,
    ),
  );
  const held = await env.ph.request('POST', '/v1/emails', {
    key: tokens.access_token,
    body: {
      from: env.ph.config.sandbox.from,
      to: [OWNER],
      subject: 'Agent refund notice',
      text: 'On its way.',
    },
  });
  t.is(held.status, 202, held.text);
  t.is(held.body.status, 'awaiting_approval');
  await page.goto(`${env.ph.url}/approvals`);
  const approvalCard = page.getByRole('article', { name: 'Send by Support agent: Agent refund notice' });
  await approvalCard.waitFor();
  await checkPage(t, page, 'approvals');
  await approvalCard.getByRole('button', { name: 'Approve and send Agent refund notice' }).click();
  await page.getByText('Nothing awaits approval.').waitFor();
  const approvedMail = await receivedMail(env, 4);
  t.is(approvedMail.subject, 'Agent refund notice');
  await open(page, 'Connected apps');
  await page.getByRole('cell', { name: /^Support agent phc_/ }).waitFor();
  await checkPage(t, page, 'connected-apps');

  await open(page, 'Audit log');
  await page.getByRole('cell', { name: 'member.add', exact: true }).waitFor();
  await page.getByLabel('Action starts with').fill('api_key.');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('member.add', { exact: true }).waitFor({ state: 'detached' });
  const actions = await page.locator('tbody tr td:nth-child(3)').allTextContents();
  t.deepEqual(
    actions,
    ['api_key.revoke', 'api_key.create', 'api_key.create'],
    'only the API key records, newest first: CI revoked, CI created, the bootstrap key',
  );
  await checkPage(t, page, 'audit-log');

  // The later capabilities' pages: tracking, inbound, audiences and broadcasts, validation, reputation.
  await open(page, 'Tracking');
  await page.getByRole('checkbox', { name: /Opens/ }).check();
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByText('Settings saved.').waitFor();
  t.true((await env.ph.request('GET', '/v1/tracking')).body.opens_enabled);
  await checkPage(t, page, 'tracking');

  await open(page, 'Inbound');
  await page.getByLabel('Local part (empty for every address)').fill('support');
  await page.getByRole('button', { name: 'Add route' }).click();
  await page.getByRole('cell', { name: 'support@brand.test', exact: true }).waitFor();
  await checkPage(t, page, 'inbound');

  await open(page, 'Audiences');
  await page.getByLabel('Name').fill('Newsletter');
  await page.getByRole('button', { name: 'Create audience' }).click();
  await page.getByRole('link', { name: 'Newsletter' }).click();
  await page.getByRole('heading', { level: 1, name: 'Newsletter' }).waitFor();
  await page.getByLabel('Email').fill('reader@example.test');
  await page.getByLabel('How they agreed').fill('signup form opt-in');
  await page.getByRole('button', { name: 'Add contact' }).click();
  await page.getByRole('cell', { name: 'reader@example.test', exact: true }).waitFor();
  await checkPage(t, page, 'audience');

  await open(page, 'Broadcasts');
  await page.getByRole('button', { name: 'New broadcast' }).click();
  // The form opens once the audiences are in, the new one chosen (a draft without one is refused).
  const newBroadcast = page.getByRole('form', { name: 'New broadcast' });
  await newBroadcast
    .getByLabel('Audience')
    .locator('option', { hasText: 'Newsletter' })
    .waitFor({ state: 'attached' });
  await page.getByLabel('Name').fill('November news');
  await page.getByLabel('From').fill('Brand News <news@brand.test>');
  await page.getByLabel('Reply-To (optional)').fill('editor@brand.test, desk@brand.test');
  await page.getByLabel('Subject').fill('What is new in November');
  await page.getByLabel('HTML').fill('<h1>November</h1><p>Hello {{first_name}}</p>');
  await page.getByLabel('Text (optional)').fill('Hello {{first_name}}');
  await page.getByRole('button', { name: 'Save draft' }).click();
  // Saved, the form closes and the list shows the draft; refused, the form says why (and the test with it).
  const draft = page.getByRole('row').filter({ hasText: 'November news' });
  const refused = newBroadcast.getByRole('alert');
  await draft.getByText('draft', { exact: true }).or(refused).waitFor();
  if (await refused.isVisible()) t.fail(`the draft was refused: ${await refused.textContent()}`);
  await newBroadcast.waitFor({ state: 'detached' });
  await draft.getByText('draft', { exact: true }).waitFor();
  const drafted = (await env.ph.request('GET', '/v1/broadcasts')).body.data[0];
  t.like(drafted, {
    name: 'November news',
    subject: 'What is new in November',
    reply_to: ['editor@brand.test', 'desk@brand.test'],
    text: 'Hello {{first_name}}',
  });
  await checkPage(t, page, 'broadcasts');

  // The draft's page shows its HTML rendered in a sandboxed frame, and the draft can be edited.
  await draft.getByRole('link', { name: 'November news' }).click();
  await page.getByRole('heading', { level: 1, name: 'November news' }).waitFor();
  const rendered = page.frameLocator('iframe[title="HTML of What is new in November"]');
  await rendered.getByRole('heading', { name: 'November' }).waitFor();
  t.is(await page.locator('iframe.preview').getAttribute('sandbox'), '', 'the frame runs no script');
  const previewed = await page.request.get(`${env.ph.url}/v1/dashboard/broadcasts/${drafted.id}/preview`);
  t.regex(previewed.headers()['content-security-policy'] ?? '', /sandbox/);
  await checkPage(t, page, 'broadcast-draft');
  await page.getByRole('button', { name: 'Edit draft' }).click();
  const editing = page.getByRole('form', { name: 'Edit draft' });
  t.is(
    await editing.getByLabel('Subject').inputValue(),
    'What is new in November',
    'the form holds the draft',
  );
  await editing.getByLabel('Subject').fill('What changed in November');
  await editing.getByLabel('Reply-To (optional)').fill('');
  await editing.getByLabel('HTML').fill('<h1>November, revised</h1>');
  await editing.getByRole('button', { name: 'Save changes' }).click();
  await page
    .frameLocator('iframe[title="HTML of What changed in November"]')
    .getByRole('heading', { name: 'November, revised' })
    .waitFor();
  t.like((await env.ph.request('GET', `/v1/broadcasts/${drafted.id}`)).body, {
    subject: 'What changed in November',
    html: '<h1>November, revised</h1>',
    text: 'Hello {{first_name}}',
    reply_to: [],
    status: 'draft',
  });
  await open(page, 'Broadcasts');
  await draft.getByRole('button', { name: 'Cancel November news' }).click();
  await draft.getByText('cancelled').waitFor();

  await open(page, 'Validation', 'Address validation');
  await page.getByLabel('Email address').fill('not an address');
  await page.getByRole('button', { name: 'Validate' }).click();
  await page
    .getByRole('heading', { level: 2, name: /not an address/ })
    .getByText('undeliverable')
    .waitFor();
  await checkPage(t, page, 'validation');

  await open(page, 'Reputation');
  await page.getByText('Overall:').waitFor();
  await checkPage(t, page, 'reputation');

  // Account: a password, then two-factor with a code from pyotp; the recovery codes once.
  await open(page, 'Account');
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Save password' }).click();
  await page.getByText('Password saved.').waitFor();
  await page.getByLabel('Confirm with your password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set up authenticator' }).click();
  const totpSecret = (await page.getByTestId('totp-secret').textContent()) ?? '';
  t.regex(totpSecret, /^[A-Z2-7]+$/);
  t.true(await page.getByRole('img', { name: 'QR code of the authenticator secret' }).isVisible());
  await checkPage(t, page, 'account-totp');
  await page.getByLabel('Code from the app').fill(pyotpCode(totpSecret));
  await page.getByRole('button', { name: 'Turn on' }).click();
  await page.getByText('Two-factor authentication is on.').waitFor();
  t.is(await page.locator('.codes li').count(), 10);
  const recoveryCode = ((await page.locator('.codes li').first().textContent()) ?? '').trim();

  // Sign out: the cookies go and the old token stops working.
  const token = session?.value as string;
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  t.falsy((await context.cookies()).find((c) => c.name === 'ph_session' && c.value !== ''));
  t.is((await env.ph.request('GET', '/v1/auth/session', { key: token })).status, 401);

  // Back in with the password: the API's 401 leads to the authenticator step.
  await page.getByRole('button', { name: 'Password' }).click();
  await page.getByLabel('Email').fill(OWNER);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').waitFor();
  t.is((await page.getByRole('alert').textContent()) ?? '', 'Invalid email, password or authenticator code.');
  await checkPage(t, page, 'sign-in-totp');
  await page.getByLabel('Authenticator code').fill(pyotpCode(totpSecret, 1));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Messages' }).waitFor();
  const again = await env.ph.request('GET', '/v1/auth/session', {
    key: (await context.cookies()).find((c) => c.name === 'ph_session')?.value as string,
  });
  t.is(again.body.auth_method, 'password');

  // A lost phone: out again, and in with the password and a recovery code, which is then spent.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  const withRecovery = async () => {
    await page.getByRole('button', { name: 'Password' }).click();
    await page.getByLabel('Email').fill(OWNER);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(recoveryCode);
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('/v1/dashboard/web/sign-in/password')),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    return answer.status();
  };
  t.is(await withRecovery(), 200);
  await page.getByRole('heading', { level: 1, name: 'Messages' }).waitFor();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await page.reload();
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  t.is(await withRecovery(), 401, 'a spent recovery code is refused');
  await page.getByText('Invalid email, password or authenticator code.').waitFor();
  t.is(
    await page.getByRole('heading', { level: 1, name: 'Messages' }).count(),
    0,
    'a spent recovery code does not sign in again',
  );
});
