/**
 * A real browser for the dashboard's tests and benchmark: Debian's chromium (`apt-get install
 * chromium`), driven by playwright-core, which downloads no browser of its own. Playwright gives
 * every launch a fresh profile directory. The flags keep it off the network: no updates, no sync,
 * no QUIC, nothing fetched from Google.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.POSTHORN_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `No browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium), or set POSTHORN_CHROMIUM.`,
    );
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly string[];
}

/**
 * Runs axe-core (WCAG 2.0/2.1 A and AA rules) on the page as it is, and returns the violations of
 * impact serious or critical. axe is evaluated through the debugging protocol, which the page's
 * CSP does not govern, so the page keeps its real policy.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(`${axeSource};0`);
  const result = (await page.evaluate(`axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    }).then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
    })))`)) as AxeViolation[];
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
