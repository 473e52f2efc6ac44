/**
 * A dashboard page in the browser tests: one chromium per test file (`sharedBrowser`), a fresh
 * context and page per test that fail the test on any uncaught page error (`openPage`), and the
 * two ways a person signs in on the sign-in page (`signInByCode`, `signInByPassword`).
 */
import test, { type ExecutionContext } from 'ava';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { launchChromium } from './browser.js';

/** Launches chromium before the file's tests and closes it after them; call at the top level. */
export function sharedBrowser(): () => Browser {
  let browser: Browser | undefined;
  test.before(async () => {
    browser = await launchChromium();
  });
  test.after.always(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser is launched in test.before');
    return browser;
  };
}

/** A fresh context (closed when the test ends) and a page in it that fails on an uncaught error. */
export async function openPage(
  t: ExecutionContext,
  browser: Browser,
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(options);
  t.teardown(() => context.close());
  const page = await context.newPage();
  page.on('pageerror', (error) => {
    throw error;
  });
  return { context, page };
}

/** Signs in on the sign-in page with a mailed code (`code` reads it once it is asked for). */
export async function signInByCode(
  page: Page,
  email: string,
  code: () => Promise<string>,
  landing: string,
): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  await page.getByRole('textbox', { name: 'Sign-in code' }).fill(await code());
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: landing }).waitFor();
}

/** Signs in on the sign-in page with a password, and waits for the page `landing`. */
export async function signInByPassword(
  page: Page,
  email: string,
  password: string,
  landing: string,
): Promise<void> {
  await page.getByRole('button', { name: 'Password' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: landing }).waitFor();
}
