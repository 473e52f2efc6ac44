/**
 * Room `inbound/threads/`, after analysis, for routed mail. Routed mail stored for each project it
 * was routed to (received.ts) and joined to its thread (this file); a message Posthorn sent is
 * known by its Message-ID (outbound.ts).
 *
 * It must never open a transaction of its own: it writes only inside its caller's.
 *
 * Threading (RFC 5322 §3.6.4): a received message joins the thread of any message it names in
 * In-Reply-To or References, whether that message was received or sent by Posthorn; otherwise it
 * starts a thread. A reply sent through the API joins the thread of the message it answers.
 * Subjects are never used to join threads: "Re: Invoice" from a stranger is not a reply.
 *
 * Runs inside the caller's transaction, so two replies arriving together cannot start two threads:
 * on SQLite its one writer, on PostgreSQL the store's thread lock and unique Message-ID keys
 * (store-hot-pg.ts) keep nodes processing mail at once from splitting a thread.
 */
import type { Db } from '../../platform/db/database.js';
import { newId } from '../../platform/ids.js';
import type { InboundStore } from '../store.js';
import { type OutboundLookup, outboundIdOf, threadKey } from './outbound.js';

export interface ThreadInput {
  readonly projectId: string;
  /** This message's own Message-ID, without angle brackets. */
  readonly messageId: string | null;
  /** In-Reply-To first, then References newest first: the order in which to look. */
  readonly references: readonly string[];
  readonly subject: string;
  readonly at: number;
}

/** Message-IDs named by In-Reply-To and References (RFC 5322 §3.6.4), angle brackets removed. */
export function referencedIds(inReplyTo: string | null, references: readonly string[]): string[] {
  const ids = [...(inReplyTo ? [inReplyTo] : []), ...[...references].reverse()];
  return [...new Set(ids.filter((id) => id !== ''))];
}

/** "Re: Fwd: RE: Invoice" → "Invoice": how a thread is titled. */
export function baseSubject(subject: string): string {
  return subject.replace(/^(\s*(re|fwd?|aw|sv|vs)\s*(\[\d+\])?\s*:\s*)+/i, '').trim();
}

export function createThreads(store: InboundStore, outbound: OutboundLookup) {
  /** A thread begun by a message Posthorn sent that no received message has named yet. */
  async function threadOfOutbound(trx: Db, input: ThreadInput): Promise<string | undefined> {
    for (const reference of input.references) {
      const id = outboundIdOf(reference);
      if (!id) continue;
      const sent = await outbound.find(trx, input.projectId, id);
      if (!sent) continue;
      const threadId = newId('thr', sent.createdAt);
      await store.insertThread(trx, {
        id: threadId,
        project_id: input.projectId,
        subject: baseSubject(sent.subject),
        created_at: sent.createdAt,
        last_message_at: sent.createdAt,
      });
      const holder = await store.addThreadMessageId(trx, {
        project_id: input.projectId,
        message_id_header: sent.id,
        thread_id: threadId,
        direction: 'outbound',
        ref_id: sent.id,
        at: sent.createdAt,
      });
      // Another transaction started the sent message's thread first: join it, drop the empty one.
      if (holder !== threadId) await store.deleteThread(trx, threadId);
      return holder;
    }
    return undefined;
  }

  return {
    /** The thread a received message belongs to, created when needed; records its Message-ID. */
    async joinInbound(trx: Db, input: ThreadInput & { readonly inboundId: string }): Promise<string> {
      const keys = input.references.map(threadKey);
      let threadId =
        (await store.threadOfMessageIds(trx, input.projectId, keys)) ?? (await threadOfOutbound(trx, input));
      if (threadId === undefined) {
        threadId = newId('thr', input.at);
        await store.insertThread(trx, {
          id: threadId,
          project_id: input.projectId,
          subject: baseSubject(input.subject),
          created_at: input.at,
          last_message_at: input.at,
        });
      } else {
        await store.touchThread(trx, threadId, input.at);
      }
      if (input.messageId) {
        await store.addThreadMessageId(trx, {
          project_id: input.projectId,
          message_id_header: threadKey(input.messageId),
          thread_id: threadId,
          direction: 'inbound',
          ref_id: input.inboundId,
          at: input.at,
        });
      }
      return threadId;
    },

    /** Records a reply Posthorn sends (`msg_...`) in the thread of the message it answers. */
    async addOutbound(
      trx: Db,
      projectId: string,
      threadId: string,
      messageId: string,
      at: number,
    ): Promise<void> {
      await store.addThreadMessageId(trx, {
        project_id: projectId,
        message_id_header: messageId,
        thread_id: threadId,
        direction: 'outbound',
        ref_id: messageId,
        at,
      });
      await store.touchThread(trx, threadId, at);
    },
  };
}

export type Threads = ReturnType<typeof createThreads>;
