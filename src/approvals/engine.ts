/**
 * Expires undecided send approvals: every second it rejects, as `expired`, the pending approvals
 * whose `approvals.expire_after` has run out (the message `rejected`, an `email.rejected` event
 * with reason `expired`). One pass at a time; a stop waits for the pass in progress.
 */
import type { Logger } from '../platform/log.js';
import type { ApprovalService } from './service.js';

const TICK_MS = 1000;

export function startApprovalExpiry(approvals: Pick<ApprovalService, 'expireDue'>, log: Logger) {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    running ??= approvals
      .expireDue()
      .catch((error: unknown) => log.error({ err: error }, 'expiring send approvals failed'))
      .finally(() => {
        running = undefined;
      });
  }, TICK_MS);
  timer.unref();
  return {
    name: 'approval-expiry',
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
