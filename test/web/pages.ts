/**
 * What every dashboard page must pass in the browser tests: no serious or critical axe-core
 * violation, no horizontal scroll at 1280 px nor at a phone's 390 px, and (with
 * POSTHORN_SCREENSHOTS=<dir>) a 1280 px screenshot for the docs.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { seriousViolations } from '../helpers/browser.js';

export const DESKTOP = { width: 1280, height: 860 };
export const PHONE = { width: 390, height: 844 };

/** The elements sticking out past the right edge (empty when the page does not scroll sideways). */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= width) return [];
    const culprits = [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > width + 1 && !el.parentElement?.closest('.table-wrap, pre'))
      .slice(0, 5)
      .map((el) => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : ''));
    return culprits.length > 0 ? culprits : ['(the page, by ' + (document.documentElement.scrollWidth - width) + ' px)'];
  })()`);
}

/** Checks the page as it is now, at both widths; leaves it at 1280 px. */
export async function checkPage(t: ExecutionContext, page: Page, name: string): Promise<void> {
  await page.waitForSelector('.loading', { state: 'detached' });
  const violations = await seriousViolations(page);
  t.deepEqual(violations, [], `${name}: axe-core found serious violations`);
  t.deepEqual(await overflowing(page), [], `${name}: scrolls sideways at 1280 px`);
  const dir = process.env.POSTHORN_SCREENSHOTS;
  if (dir) {
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: false });
  }
  await page.setViewportSize(PHONE);
  t.deepEqual(await overflowing(page), [], `${name}: scrolls sideways at 390 px`);
  t.deepEqual(await seriousViolations(page), [], `${name}: axe-core found serious violations at 390 px`);
  await page.setViewportSize(DESKTOP);
}

/** Follows a link of the main navigation and waits for the page's heading. */
export async function open(page: Page, label: string, heading = label): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: label, exact: true })
    .click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}
