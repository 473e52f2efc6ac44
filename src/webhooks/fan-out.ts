/**
 * Reads the event log from the dispatcher's cursor and turns each event into one message per
 * enabled endpoint of its project subscribed to its type, with a first attempt due now. The
 * messages, attempts and the advanced cursor commit together, so an event is fanned out exactly
 * once even across crashes (delivery itself is at least once). An endpoint only receives events
 * created after it was: a new endpoint is not flooded with a backlog. Internal events (the log's
 * own, e.g. `email.cancelled` for analytics) are read past and never reach an endpoint, `*` or not.
 * An event about a message goes only to endpoints of the message's mode (a test send's events to
 * test endpoints); one about no message (`domain.*`, `contact.*`, `email.received`) goes to
 * endpoints of both modes (the rule is message-mode.ts's, shared with replay). The mode is asked of
 * the emails capability once per message per page, as analytics does.
 *
 * The page commits without an fsync on the event loop (synchronous=NORMAL): everything it writes
 * derives from the event log, and a power cut rolls the messages back with the cursor, so the
 * page is fanned out again after the restart (at worst a webhook already sent goes again, which
 * at-least-once delivery allows).
 */
import type SQLite from 'better-sqlite3';
import type { MessageMode, MessageModes } from '../emails/model.js';
import type { CursorStore } from '../events/cursors.js';
import { type EventRecord, toPayload } from '../events/service.js';
import { isInternalEvent } from '../events/types.js';
import type { EventWindow } from '../events/window.js';
import type { Db } from '../platform/db/database.js';
import { writeTransaction } from '../platform/db/savepoints.js';
import type { KeyMode } from '../platform/db/tables.js';
import { lockInTransaction } from '../platform/db/transaction-lock.js';
import { newId } from '../platform/ids.js';
import { modeOfMessage } from './message-mode.js';
import {
  type AttemptRow,
  type EndpointRow,
  type MessageRow,
  pendingAttempt,
  type WebhookStore,
} from './store.js';

export const DISPATCHER_CURSOR = 'webhooks';

interface Subscription {
  readonly endpoint: EndpointRow;
  readonly all: boolean;
  readonly types: ReadonlySet<string>;
}

function subscriptionOf(endpoint: EndpointRow): Subscription {
  const types = new Set(JSON.parse(endpoint.events) as string[]);
  return { endpoint, all: types.has('*'), types };
}

function subscribed({ endpoint, all, types }: Subscription, event: EventRecord): boolean {
  return (
    !isInternalEvent(event.type) &&
    endpoint.project_id === event.project_id &&
    event.created_at >= endpoint.created_at &&
    (all || types.has(event.type))
  );
}

/**
 * Fans out one page of events; returns how many events it read (0 when caught up).
 * Only the types some enabled endpoint subscribes to are read whole (every type when one takes `*`):
 * under tracking traffic most of the log is opens and clicks, which a fan-out without an endpoint
 * for them only skips.
 */
export async function fanOutPage(
  db: Db,
  deps: {
    sqlite: SQLite.Database;
    store: WebhookStore;
    cursors: CursorStore;
    /** The event log's window reader (events/window.ts). */
    readWindow: (
      afterId: string,
      limit: number,
      types: readonly string[] | undefined,
      executor: Db,
    ) => Promise<EventWindow>;
    messageMode: MessageMode;
    /** PostgreSQL: the page's message modes read at once (messageMode is SQLite's synchronous port). */
    messageModes?: MessageModes;
  },
  pageSize: number,
): Promise<{ read: number; queued: number }> {
  // One transaction under a lock of its own (PostgreSQL): the fan-out never runs twice at once
  // across nodes. Relaxed durability on SQLite: a page lost with the OS is fanned out again.
  return writeTransaction(
    db,
    deps.sqlite,
    async (trx) => {
      await lockInTransaction(trx, 'webhook-fan-out');
      return fanOut(trx, deps, pageSize);
    },
    { relaxed: true },
  );
}

async function fanOut(
  trx: Db,
  deps: Parameters<typeof fanOutPage>[1],
  pageSize: number,
): Promise<{ read: number; queued: number }> {
  const cursor = await deps.cursors.get(DISPATCHER_CURSOR, trx);
  const types = subscribedTypes(await deps.store.enabledSubscriptions(trx));
  const { rows: events, last, read } = await deps.readWindow(cursor, pageSize, types, trx);
  if (last === undefined) return { read: 0, queued: 0 };
  if (events.length === 0) {
    await deps.cursors.set(DISPATCHER_CURSOR, last, trx);
    return { read, queued: 0 };
  }
  const projects = [...new Set(events.map((event) => event.project_id))];
  const subscriptions = (await deps.store.enabledEndpoints(trx, projects)).map(subscriptionOf);
  const messages: MessageRow[] = [];
  const attempts: AttemptRow[] = [];
  const now = Date.now();
  const modes = new Map<string, KeyMode>();
  if (deps.messageModes !== undefined) {
    const ids = events.flatMap((event) => (event.message_id ? [event.message_id] : []));
    // A message the store does not know counts as live, as modeOfMessage says.
    for (const id of ids) modes.set(id, 'live');
    for (const [id, mode] of await deps.messageModes(ids)) modes.set(id, mode);
  }
  const modeOf = (messageId: string): KeyMode => {
    let mode = modes.get(messageId);
    if (!mode) {
      mode = modeOfMessage(deps.messageMode, messageId);
      modes.set(messageId, mode);
    }
    return mode;
  };
  for (const event of events) {
    let body: string | undefined;
    let mode: KeyMode | undefined;
    for (const subscription of subscriptions) {
      if (!subscribed(subscription, event)) continue;
      // Asked only of an event some endpoint subscribes to; undefined: the event is about no message.
      if (event.message_id) mode ??= modeOf(event.message_id);
      if (mode !== undefined && subscription.endpoint.mode !== mode) continue;
      const { endpoint } = subscription;
      body ??= JSON.stringify(toPayload(event));
      const message: MessageRow = {
        id: newId('whm', now),
        endpoint_id: endpoint.id,
        project_id: event.project_id,
        event_id: event.id,
        event_type: event.type,
        body,
        created_at: now,
      };
      messages.push(message);
      attempts.push(
        pendingAttempt(
          {
            message_id: message.id,
            endpoint_id: endpoint.id,
            attempt: 1,
            trigger: 'event',
            replay_of: null,
            previous_attempt_id: null,
          },
          now,
        ),
      );
    }
  }
  await deps.store.insertMessages(trx, messages, attempts);
  await deps.cursors.set(DISPATCHER_CURSOR, last, trx);
  return { read, queued: attempts.length };
}

/** The types any enabled endpoint takes (internal ones never), or undefined for every type (`*`). */
function subscribedTypes(lists: readonly string[]): string[] | undefined {
  const types = new Set<string>();
  for (const list of lists) {
    for (const type of JSON.parse(list) as string[]) {
      if (type === '*') return undefined;
      if (!isInternalEvent(type)) types.add(type);
    }
  }
  return [...types];
}
