/**
 * The OAuth server's background chores: every few seconds it writes the grants' last-used times
 * (kept in memory so that authenticating a token never writes), and hourly it purges codes and
 * tokens a day past their expiry (kept that long so a late replay still finds what it revokes).
 * Its stop writes the last-used times one last time.
 */
import type { Logger } from '../platform/log.js';
import type { OAuthStore } from './store.js';

const FLUSH_MS = 5000;
const PURGE_MS = 3_600_000;
const KEEP_MS = 86_400_000;

export function startHousekeeping(deps: {
  readonly store: OAuthStore;
  readonly flushLastUsed: () => Promise<void>;
  readonly log: Logger;
}) {
  let lastPurge = 0;
  const tick = async () => {
    await deps.flushLastUsed();
    const now = Date.now();
    if (now - lastPurge < PURGE_MS) return;
    lastPurge = now;
    const codes = await deps.store.purgeCodes(now - KEEP_MS);
    const tokens = await deps.store.purgeTokens(now - KEEP_MS);
    if (codes + tokens > 0) deps.log.info({ codes, tokens }, 'purged expired oauth codes and tokens');
  };
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= tick()
      .catch((error: unknown) => deps.log.error({ err: error }, 'oauth housekeeping failed'))
      .finally(() => {
        running = undefined;
      });
  }, FLUSH_MS);
  timer.unref();
  return {
    name: 'oauth-housekeeping',
    async stop() {
      clearInterval(timer);
      await running;
      await deps.flushLastUsed();
    },
  };
}
