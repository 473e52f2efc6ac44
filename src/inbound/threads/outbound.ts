/**
 * What threads need to know about mail Posthorn sent: whether a Message-ID is one of ours, and a
 * short summary of an outbound message to show in a thread. Outbound messages carry
 * `Message-ID: <msg_...@sending-domain>` (delivery engine), so the ID itself names the message.
 *
 * It reads the message pipeline's own rows (`messages`, `message_recipients`, migration 0002),
 * never writes them.
 */
import type { Db } from '../../platform/db/database.js';

export interface OutboundSummary {
  readonly id: string;
  readonly from: string;
  readonly to: readonly string[];
  readonly subject: string;
  readonly status: string;
  readonly createdAt: number;
}

const OUTBOUND_ID = /^(msg_[0-9A-HJKMNP-TV-Z]{26})@/i;

/** The `msg_...` ID in a Message-ID Posthorn generated, or undefined. */
export function outboundIdOf(messageId: string): string | undefined {
  const match = OUTBOUND_ID.exec(messageId);
  return match ? `msg_${(match[1] as string).slice(4).toUpperCase()}` : undefined;
}

/**
 * The key a Message-ID is indexed under in a thread: an outbound ID stands for itself (whatever
 * domain it was written with), any other Message-ID as it was written, without angle brackets.
 */
export function threadKey(messageId: string): string {
  return outboundIdOf(messageId) ?? messageId;
}

export function createOutboundLookup(db: Db) {
  return {
    async find(
      executor: Db,
      projectId: string,
      id: string,
    ): Promise<{ id: string; subject: string; createdAt: number } | undefined> {
      const row = await executor
        .selectFrom('messages')
        .select(['id', 'subject', 'created_at'])
        .where('id', '=', id)
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return row ? { id: row.id, subject: row.subject, createdAt: row.created_at } : undefined;
    },

    async summaries(projectId: string, ids: readonly string[]): Promise<OutboundSummary[]> {
      if (ids.length === 0) return [];
      const rows = await db
        .selectFrom('messages')
        .select(['id', 'from_header', 'subject', 'status', 'created_at'])
        .where('project_id', '=', projectId)
        .where('id', 'in', [...ids])
        .execute();
      const recipients = await db
        .selectFrom('message_recipients')
        .select(['message_id', 'email'])
        .where('message_id', 'in', [...ids])
        .where('kind', '=', 'to')
        .orderBy('id')
        .execute();
      return rows.map((row) => ({
        id: row.id,
        from: row.from_header,
        to: recipients.filter((r) => r.message_id === row.id).map((r) => r.email),
        subject: row.subject,
        status: row.status,
        createdAt: row.created_at,
      }));
    },
  };
}

export type OutboundLookup = ReturnType<typeof createOutboundLookup>;
