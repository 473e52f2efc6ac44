/**
 * Pending webhook attempts queued before endpoints had a mode (0016) kept their old routing: a
 * retry of a test send's event to a live endpoint (or of a live send's to a test endpoint) was
 * still sent. The fan-out routes by mode since 0016, so this is the only place such an attempt can
 * come from; dropping them here keeps the dispatcher's hot path free of a mode read per attempt.
 *
 * Each one ends `failed`, never requested (no `url`, `requested_at` or response), with an `error`
 * saying why, so the delivery log shows it and it is not retried; it is not deleted. The message
 * an event is about is the event's `message_id`, as the fan-out reads it; when retention already
 * removed the event, its `email.*` payload (every type but `email.received`) names it as
 * `data.email_id`. A message not found counts as live, as in the fan-out. Endpoint streaks are
 * left alone: nothing was sent.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`with pending as (
              select a.id, e.mode as endpoint_mode,
                     case when ev.id is not null then ev.message_id
                          when m.event_type like 'email.%' and m.event_type <> 'email.received'
                            then json_extract(m.body, '$.data.email_id')
                     end as about
              from webhook_attempts a
              join webhook_messages m on m.id = a.message_id
              join webhook_endpoints e on e.id = a.endpoint_id
              left join events ev on ev.id = m.event_id
              where a.state = 'pending'),
            misrouted as (
              select p.id, p.endpoint_mode,
                     coalesce((select mode from messages where id = p.about), 'live') as message_mode
              from pending p where p.about is not null)
            update webhook_attempts
            set state = 'failed', locked_until = null,
                error = (select 'Not sent: queued before endpoints had a mode, for an event about a ' ||
                                r.message_mode || ' message; a ' || r.endpoint_mode ||
                                ' endpoint receives the events of ' || r.endpoint_mode || ' messages only.'
                         from misrouted r where r.id = webhook_attempts.id)
            where id in (select id from misrouted where message_mode <> endpoint_mode)`.execute(db);
}
