/**
 * How long a stop of `posthorn serve` may take, from the config, against the shipped unit's
 * `TimeoutStopSec` (systemd/posthorn.service). A stop's waits run side by side (server.ts,
 * background.ts): HTTP and the inbound listener wait `server.shutdown_timeout`, after which a
 * message being committed gets up to `COMMIT_GRACE_MS` more to be answered, and then the
 * processor up to `PROCESSOR_STOP_MS` for received mail still being processed (what is left waits
 * in the spool for the next start); the delivery engine waits `delivery.drain_timeout`. (A commit
 * that hangs past that grace, a stuck fsync, gets one grace more before the listener gives up on
 * it, and a change to the spool stuck so gets `SPOOL_GRACE_MS`; such a process cannot exit until
 * systemd kills it anyway, so those cases are not counted.)
 * Webhook requests in flight are aborted at once, and so is an attachment scan (its attachment
 * stays pending for the next start), so clamd's `clamav.timeout_ms` is no wait of a stop. Past the
 * unit's limit systemd kills the process with delivery jobs still leased (sent again once the
 * lease runs out). This only warns, never refuses: a drop-in may have raised the limit.
 */
import { COMMIT_GRACE_MS } from './inbound/listener/listener.js';
import { PROCESSOR_STOP_MS } from './inbound/processor-stop.js';
import { parseDuration } from './platform/config/duration.js';
import type { Config } from './platform/config/schema.js';

/** `TimeoutStopSec` of systemd/posthorn.service (a test holds the two together). */
export const UNIT_TIMEOUT_STOP_SEC = 30;

/** A stop that comes this close to the limit is warned about: the flush and the store close follow. */
const MARGIN_MS = 5_000;

type StopConfig = Pick<Config, 'server' | 'smtp_in' | 'delivery'>;

/** The longest wait of a stop, in milliseconds. */
export function longestStopMs(config: StopConfig): number {
  const inbound = config.smtp_in.enabled ? COMMIT_GRACE_MS + PROCESSOR_STOP_MS : 0;
  const http = parseDuration(config.server.shutdown_timeout) + inbound;
  const delivery = config.delivery.enabled ? parseDuration(config.delivery.drain_timeout) : 0;
  return Math.max(http, delivery);
}

/** What to tell the operator when a stop may outlast, or come within 5 s of, the unit's limit. */
export function stopTimeWarning(config: StopConfig): string | undefined {
  const ms = longestStopMs(config);
  if (ms < UNIT_TIMEOUT_STOP_SEC * 1000 - MARGIN_MS) return undefined;
  const grace = config.smtp_in.enabled
    ? ` (+ ${COMMIT_GRACE_MS / 1000} s for an inbound message being committed, + ${PROCESSOR_STOP_MS / 1000} s for received mail being processed)`
    : '';
  const drain = config.delivery.enabled
    ? ` and delivery.drain_timeout = ${config.delivery.drain_timeout}`
    : '';
  const suggested = Math.ceil(ms / 1000) + 10;
  return (
    `a stop may take ${Math.ceil(ms / 1000)} s (server.shutdown_timeout = ${config.server.shutdown_timeout}${grace}${drain}, ` +
    `side by side), within ${MARGIN_MS / 1000} s of the systemd unit's TimeoutStopSec=${UNIT_TIMEOUT_STOP_SEC} or over it: ` +
    'systemd would kill Posthorn before it has stopped cleanly (delivery jobs still leased are sent again once their lease runs out). ' +
    `Lower those keys, or raise the limit in a drop-in holding the two lines "[Service]" and "TimeoutStopSec=${suggested}": ` +
    '`systemctl edit posthorn` writes one, or write /etc/systemd/system/posthorn.service.d/stop-timeout.conf and run `systemctl daemon-reload`.'
  );
}
