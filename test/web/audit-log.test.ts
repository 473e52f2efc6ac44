/**
 * The Audit log page in a real browser shows an access-control failure with its route, its reason
 * and how many times it happened within the minute (ASVS 7.2.2).
 */
import test from 'ava';
import { openPage, sharedBrowser, signInByPassword } from '../helpers/dashboard-page.js';
import { startPosthorn } from '../helpers/server.js';

const OWNER = 'owner@example.test';
const PASSWORD = 'lantern orbit meadow quietly';

const browser = sharedBrowser();

test('the Audit log page shows a key refused three times as one record with its route, reason and count', async (t) => {
  t.timeout(90_000);
  const ph = await startPosthorn(t);
  const { users } = ph.server.services.accounts;
  await users.setPassword((await users.findByEmail(OWNER))!, PASSWORD);
  const sender = await ph.createKey(ph.owner.projectId, ['emails:send']);
  for (let i = 0; i < 3; i++) t.is((await ph.request('GET', '/v1/templates', { key: sender })).status, 403);

  const { page } = await openPage(t, browser());
  await page.goto(`${ph.url}/audit-log`);
  await signInByPassword(page, OWNER, PASSWORD, 'Audit log');
  await page.getByLabel('Action starts with').fill('access.');
  await page.getByRole('button', { name: 'Filter' }).click();
  const row = page.locator('tbody tr').filter({ hasText: 'access.denied' });
  await row.getByText('GET /v1/templates · forbidden · 3 times').waitFor();
  // The record is in the unfiltered list too: wait for the filtered list to replace it.
  await page.locator('tbody tr').nth(1).waitFor({ state: 'detached' });
  t.is(await page.locator('tbody tr').count(), 1);
});
