/** The web dashboard's parts: its session cookie, its assets, and what the HTTP app takes from them. */
import type { Kernel } from '../kernel.js';
import { parseDuration } from '../platform/config/duration.js';
import { type DashboardAssets, defaultAssetsDir, loadDashboardAssets } from './assets.js';
import { createCookieSession } from './cookie-session.js';
import { dashboardPrincipal } from './principal.js';

export function buildWeb(kernel: Kernel) {
  const { config } = kernel;
  const cookies = createCookieSession({
    masterKey: kernel.masterKey,
    publicUrl: config.server.public_url,
    maxAgeSeconds: Math.floor(parseDuration(config.accounts.session_lifetime) / 1000),
  });
  const assets: DashboardAssets | undefined = config.dashboard.enabled
    ? loadDashboardAssets(config.dashboard.assets_dir || defaultAssetsDir(), config.dashboard.path)
    : undefined;
  return {
    cookies,
    assets,
    /** For createAuthenticators: the cookie as a second source of the session token. */
    authOptions: { cookie: cookies, asKey: dashboardPrincipal },
  };
}

export type Web = ReturnType<typeof buildWeb>;
