/**
 * The webhook fan-out engine: it wakes when events are committed (on any node), turns new events
 * into messages and first attempts page by page (fan-out.ts), and tells the dispatchers of every
 * node that attempts are queued.
 *
 * It is a singleton (background.ts runs it under leadership: one node at a time on PostgreSQL),
 * while the dispatcher that sends the attempts runs on every node. The fan-out follows one cursor
 * along the event log, so a second runner could only queue behind the first on the cursor's
 * transaction lock; and a page costs one transaction per 500 events, far less than sending them,
 * so one node never holds the others up. The sending is what is spread.
 */

import type SQLite from 'better-sqlite3';
import type { MessageMode, MessageModes } from '../emails/model.js';
import type { CursorStore } from '../events/cursors.js';
import type { EventService } from '../events/service.js';
import type { Db } from '../platform/db/database.js';
import type { Notifications } from '../platform/db/notifications.js';
import type { Logger } from '../platform/log.js';
import { passRunner } from '../platform/pass-runner.js';
import { fanOutPage } from './fan-out.js';
import type { WebhookStore } from './store.js';

/** The channel the fan-out notifies when it has queued attempts (every node's dispatcher listens). */
export const ATTEMPTS_QUEUED = 'webhook_attempts_queued';

const FAN_OUT_PAGE = 500;
/** Re-read the event log at least this often, for events committed without a notification. */
const POLL_MS = 2000;

export interface FanOutDeps {
  readonly db: Db;
  readonly sqlite: SQLite.Database;
  readonly store: WebhookStore;
  readonly cursors: CursorStore;
  readonly events: Pick<EventService, 'windowAfter' | 'onAppended'>;
  /** A message's mode: its events go to endpoints of that mode only. */
  readonly messageMode: MessageMode;
  /** PostgreSQL: a page's modes at once. */
  readonly messageModes?: MessageModes;
  readonly notifications: Pick<Notifications, 'notify'>;
  readonly log: Logger;
}

export function startWebhookFanOut(deps: FanOutDeps) {
  let timer: NodeJS.Timeout | undefined;
  const runner = passRunner(
    pump,
    (error: unknown) => deps.log.error({ err: error }, 'webhook fan-out pass failed'),
    () => {
      if (runner.stopped) return;
      clearTimeout(timer);
      timer = setTimeout(wake, POLL_MS);
      timer.unref();
    },
  );
  const { wake } = runner;

  async function pump(): Promise<void> {
    for (;;) {
      const page = await fanOutPage(
        deps.db,
        {
          sqlite: deps.sqlite,
          store: deps.store,
          cursors: deps.cursors,
          readWindow: deps.events.windowAfter,
          messageMode: deps.messageMode,
          ...(deps.messageModes ? { messageModes: deps.messageModes } : {}),
        },
        FAN_OUT_PAGE,
      );
      // Each committed page at once, so that a long backlog is sent while it is fanned out.
      if (page.queued > 0) deps.notifications.notify(ATTEMPTS_QUEUED);
      if (page.read < FAN_OUT_PAGE || runner.stopped) return;
    }
  }

  const unsubscribe = deps.events.onAppended(wake);
  wake();

  return {
    name: 'webhook-fan-out',
    wake,
    async stop(): Promise<void> {
      const passEnded = runner.stop();
      clearTimeout(timer);
      unsubscribe();
      await passEnded;
    },
  };
}
