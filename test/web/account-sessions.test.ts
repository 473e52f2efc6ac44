/**
 * The Account page in a real browser: the person's sessions (this one marked, another ended with a
 * click, then all others), a password change that signs the others out and says so, and setting up
 * an authenticator on an account without a password, confirmed by a mailed sign-in code; and the
 * Members page's two-factor requirement for owners and admins, and new recovery codes.
 */
import test from 'ava';
import { codeIn, post, pyotpCode, receivedMail, startAccountsEnv } from '../accounts/env.js';
import type { DeliveryEnv } from '../delivery/env.js';
import { openPage, sharedBrowser, signInByCode } from '../helpers/dashboard-page.js';
import { checkPage, DESKTOP } from './pages.js';

const OWNER = 'owner@example.test';
const PASSWORD = 'lantern orbit meadow quietly';

const browser = sharedBrowser();

/** A session made over the API by a script (`curl`), by the code in mail number `n`. */
async function scriptSession(env: DeliveryEnv, n: number): Promise<string> {
  const headers = { 'User-Agent': 'curl/8.5.0' };
  await env.ph.request('POST', '/v1/auth/request-code', { key: null, body: { email: OWNER }, headers });
  const code = codeIn(await receivedMail(env, n));
  const res = await env.ph.request('POST', '/v1/auth/verify-code', {
    key: null,
    body: { email: OWNER, code },
    headers,
  });
  if (res.status !== 200) throw new Error(`verify-code: ${res.status} ${res.text}`);
  return res.body.token as string;
}

test('the Account page lists the sessions, ends another and then all others, signs them out at a password change, and sets up an authenticator with a mailed code', async (t) => {
  t.timeout(120_000);
  const env = await startAccountsEnv(t);
  const script = await scriptSession(env, 1);
  const { page } = await openPage(t, browser(), { viewport: DESKTOP });
  page.on('dialog', (dialog) => void dialog.accept());

  await page.goto(`${env.ph.url}/account`);
  await signInByCode(page, OWNER, async () => codeIn(await receivedMail(env, 2)), 'Account');

  const table = page.getByRole('table', { name: 'Your sessions' });
  const rows = table.locator('tbody tr');
  await rows.nth(1).waitFor();
  t.is(await rows.count(), 2);
  const mine = rows.filter({ hasText: 'This session' });
  t.regex((await mine.textContent()) ?? '', /Chrome on Linux/);
  t.regex((await mine.textContent()) ?? '', /127\.0\.0\.0\/24/);
  const curlRow = rows.filter({ hasText: 'curl' });
  t.is(await curlRow.count(), 1);
  await checkPage(t, page, 'account-sessions');

  // End the script's session with a click: its token stops working, the row goes.
  await curlRow.getByRole('button', { name: /^End the session of curl/ }).click();
  await rows.filter({ hasText: 'curl' }).waitFor({ state: 'detached' });
  t.is(await rows.count(), 1);
  t.is((await env.ph.request('GET', '/v1/auth/session', { key: script })).status, 401);

  // No password yet: the authenticator is set up after a sign-in code mailed for the purpose.
  await page.locator('summary', { hasText: 'Use a sign-in code instead' }).click();
  await page.getByRole('button', { name: 'Email me a code' }).click();
  await page.getByText(`A code is on its way to ${OWNER}.`).waitFor();
  await page.getByLabel('Sign-in code from the email').fill(codeIn(await receivedMail(env, 3)));
  await page.getByRole('button', { name: 'Set up authenticator' }).click();
  t.regex((await page.getByTestId('totp-secret').textContent()) ?? '', /^[A-Z2-7]+$/);

  // A password change signs the other sessions out and says how many.
  const other = await scriptSession(env, 4);
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Save password' }).click();
  await page.getByText('Password saved. 1 other session was signed out.').waitFor();
  t.is((await env.ph.request('GET', '/v1/auth/session', { key: other })).status, 401);

  // All others at once.
  const byPassword = await post(env, '/v1/auth/login-password', { email: OWNER, password: PASSWORD });
  t.is(byPassword.status, 200, byPassword.text);
  await page.reload();
  await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
  await rows.nth(1).waitFor();
  await page.getByRole('button', { name: 'End all other sessions' }).click();
  await page.getByText('1 other session was ended.').waitFor();
  t.is((await env.ph.request('GET', '/v1/auth/session', { key: byPassword.body.token })).status, 401);
  // The list is read again after the notice: wait for the ended row to leave it.
  await rows.nth(1).waitFor({ state: 'detached' });
  t.is(await rows.count(), 1);
});

test('an owner requires two-factor of owners and admins from the Members page, once their own authenticator is on', async (t) => {
  t.timeout(120_000);
  const env = await startAccountsEnv(t);
  const { context, page } = await openPage(t, browser(), { viewport: DESKTOP });
  await page.goto(`${env.ph.url}/members`);
  await signInByCode(page, OWNER, async () => codeIn(await receivedMail(env, 1)), 'Members');

  const form = page.getByRole('form', { name: 'Two-factor requirement' });
  await form.getByText(`Without two-factor: ${OWNER} (owner)`).waitFor();
  await form.getByLabel('Require two-factor authentication of owners and admins').check();
  await form.getByRole('button', { name: 'Save' }).click();
  await form.getByText(/Turn on an authenticator for your own account first/).waitFor();
  await checkPage(t, page, 'members-security');

  // The owner's authenticator, turned on with this very session (the cookie's token as a bearer).
  const token = (await context.cookies()).find((c) => c.name === 'ph_session')?.value as string;
  await env.ph.request('PUT', '/v1/dashboard/account/password', { key: token, body: { password: PASSWORD } });
  const enrol = await post(env, '/v1/dashboard/account/totp', { current_password: PASSWORD }, token);
  const on = await post(
    env,
    '/v1/dashboard/account/totp/confirm',
    { code: pyotpCode(enrol.body.secret) },
    token,
  );
  t.is(on.status, 200, on.text);

  await page.reload();
  await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
  await form.getByLabel('Require two-factor authentication of owners and admins').check();
  await form.getByRole('button', { name: 'Save' }).click();
  await form.getByText('Saved.').waitFor();
  t.false(await form.getByText('Without two-factor:').isVisible());
  const setting = await env.ph.request('GET', '/v1/dashboard/organization/security', { key: token });
  t.true(setting.body.require_two_factor_for_admins);
  t.true(await form.getByLabel('Require two-factor authentication of owners and admins').isChecked());

  // New recovery codes from the Account page, with the authenticator's current code.
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Account', exact: true })
    .click();
  await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
  await page.locator('summary', { hasText: 'Make new recovery codes' }).click();
  await page.getByLabel('Current code from the app').fill(pyotpCode(enrol.body.secret, 1));
  await page.getByRole('button', { name: 'Make new codes' }).click();
  await page.getByText('Two-factor authentication is on.').waitFor();
  t.is(await page.locator('.codes li').count(), 10);
  const shown = ((await page.locator('.codes li').first().textContent()) ?? '').trim();
  t.false((on.body.recovery_codes as string[]).includes(shown), 'new codes, not the ones of enrolment');
});

test('a session that ends while the dashboard is open brings the sign-in page with a notice, and signing in returns to the page', async (t) => {
  t.timeout(120_000);
  const env = await startAccountsEnv(t);
  const { page } = await openPage(t, browser(), { viewport: DESKTOP });
  await page.goto(`${env.ph.url}/account`);
  await signInByCode(page, OWNER, async () => codeIn(await receivedMail(env, 1)), 'Account');
  // The page has read what it shows (a read still in flight at the expiry would bring the
  // sign-in page before the click below, and the sign-in would return to Account).
  await page.getByText('This session', { exact: true }).waitFor();
  await page.waitForLoadState('networkidle');

  // Its twelve hours are up while the page is open.
  await env.ph.server.kernel.db
    .updateTable('sessions')
    .set({ expires_at: Date.now() - 1000 })
    .execute();
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Domains', exact: true })
    .click();
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await page
    .getByRole('status')
    .getByText('Your session has ended: This session has expired; sign in again.')
    .waitFor();
  await checkPage(t, page, 'sign-in-session-ended');

  await signInByCode(page, OWNER, async () => codeIn(await receivedMail(env, 2)), 'Domains');
  t.false(await page.getByText('Your session has ended').isVisible());
});
