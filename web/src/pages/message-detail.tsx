/**
 * One message: its recipients, each with a timeline of what happened (queued, deferred with the
 * MX's reply, delivered, bounced, opened, clicked), its headers and tags, and the HTML shown in a
 * sandboxed frame served with its own CSP (no scripts, no remote images, no same-origin access).
 */
import { del, get, query } from '../api';
import { Link } from '../router';
import { storedProject } from '../session';
import {
  ActionButton,
  Empty,
  ErrorNote,
  Loading,
  PageHeader,
  Pre,
  Show,
  Status,
  Table,
  useLoad,
  When,
} from '../ui';

interface Detail {
  id: string;
  from: string;
  subject: string;
  status: string;
  channel: string;
  recipients: { email: string; type: string; status: string; mta_queue_id?: string }[];
  reply_to: string[];
  headers: Record<string, string>;
  tags: Record<string, string>;
  created_at: string;
  updated_at: string;
  scheduled_at?: string;
  html?: string;
  text?: string;
}
interface Event {
  id: string;
  type: string;
  created_at: string;
  recipient: string | null;
  data: Record<string, unknown>;
}

const LABELS: Record<string, string> = {
  'email.sent': 'Queued',
  'email.scheduled': 'Scheduled',
  'email.delivered': 'Delivered',
  'email.delivery_delayed': 'Deferred',
  'email.bounced': 'Bounced',
  'email.complained': 'Complained',
  'email.opened': 'Opened',
  'email.clicked': 'Clicked',
  'email.failed': 'Failed',
  'email.suppressed': 'Suppressed',
  'email.rejected': 'Rejected',
  'email.cancelled': 'Cancelled',
};

/** What an event's data says worth reading: the MX's reply, the next try, the link, the machine verdict. */
function eventNote(event: Event): string {
  const d = event.data;
  const part = (key: string) =>
    d[key] && typeof d[key] === 'object' ? (d[key] as Record<string, unknown>) : undefined;
  const said = (o: Record<string, unknown>) =>
    typeof o.smtp_response === 'string'
      ? `${typeof o.mx_host === 'string' ? o.mx_host : 'The MX'} answered: ${o.smtp_response}`
      : '';
  const parts: string[] = [];
  const delivery = part('delivery');
  if (delivery) parts.push(said(delivery), delivery.tls === true ? 'over TLS' : '');
  const delay = part('delay');
  if (delay) {
    parts.push(said(delay));
    if (typeof delay.next_attempt_at === 'string')
      parts.push(
        `next attempt ${new Date(delay.next_attempt_at).toLocaleString('en-GB', { timeStyle: 'short', dateStyle: 'medium' })}`,
      );
  }
  const bounce = part('bounce');
  if (bounce) parts.push(`${bounce.type ?? ''} bounce (${bounce.category ?? 'unclassified'})`, said(bounce));
  const failure = part('failure');
  if (failure && typeof failure.reason === 'string') parts.push(failure.reason);
  const click = part('click');
  if (click && typeof click.link === 'string') parts.push(click.link);
  const agent = (click ?? part('open'))?.agent_class;
  if (typeof agent === 'string') parts.push(agent);
  if (d.machine === true)
    parts.push(`machine${typeof d.machine_reason === 'string' ? ` (${d.machine_reason})` : ''}`);
  return parts.filter(Boolean).join(' · ');
}

export function MessageDetail({ params }: { params: Record<string, string> }) {
  const id = params.id as string;
  const detail = useLoad(() => get<Detail>(`/v1/dashboard/emails/${encodeURIComponent(id)}`), [id]);
  const events = useLoad(
    () => get<{ data: Event[] }>(`/v1/dashboard/emails/${encodeURIComponent(id)}/events`),
    [id],
  );
  return (
    <>
      <p class="crumbs">
        <Link to="/messages">Messages</Link> / <span>{id}</span>
      </p>
      <Show load={detail}>
        {(m) => (
          <>
            <PageHeader title={m.subject || '(no subject)'}>
              <Status value={m.status} />
              {m.status === 'scheduled' && (
                <ActionButton
                  confirm="Cancel this scheduled send? It will not be sent."
                  action={async () => {
                    await del(`/v1/emails/${encodeURIComponent(m.id)}/schedule`);
                    detail.reload();
                    events.reload();
                  }}
                >
                  Cancel scheduled send
                </ActionButton>
              )}
            </PageHeader>
            <dl class="facts">
              <dt>ID</dt>
              <dd>
                <code>{m.id}</code>
              </dd>
              <dt>From</dt>
              <dd>{m.from}</dd>
              {m.reply_to.length > 0 && (
                <>
                  <dt>Reply-To</dt>
                  <dd>{m.reply_to.join(', ')}</dd>
                </>
              )}
              <dt>Channel</dt>
              <dd>{m.channel}</dd>
              <dt>Created</dt>
              <dd>
                <When at={m.created_at} />
              </dd>
              {m.scheduled_at && (
                <>
                  <dt>Scheduled for</dt>
                  <dd>
                    <When at={m.scheduled_at} />
                  </dd>
                </>
              )}
              <dt>Updated</dt>
              <dd>
                <When at={m.updated_at} />
              </dd>
            </dl>
            <section aria-labelledby="recipients-title">
              <h2 id="recipients-title">Recipients</h2>
              {events.error && <ErrorNote error={events.error} />}
              {m.recipients.map((r) => (
                <article class="recipient" key={`${r.type}:${r.email}`} aria-label={`Recipient ${r.email}`}>
                  <header>
                    <strong>{r.email}</strong> <span class="muted">{r.type}</span> <Status value={r.status} />
                    {r.mta_queue_id && <span class="muted"> · MX queue ID {r.mta_queue_id}</span>}
                  </header>
                  {events.data === undefined && !events.error ? (
                    <Loading what="Loading events" />
                  ) : (
                    <Timeline
                      events={(events.data?.data ?? []).filter(
                        (e) => e.recipient === null || e.recipient === r.email,
                      )}
                    />
                  )}
                </article>
              ))}
            </section>
            <section aria-labelledby="content-title">
              <h2 id="content-title">Content</h2>
              {m.html !== undefined ? (
                <iframe
                  class="preview"
                  title={`HTML body of ${m.subject || 'the message'}`}
                  sandbox=""
                  src={`/v1/dashboard/emails/${encodeURIComponent(m.id)}/preview${query({ project: storedProject() })}`}
                />
              ) : null}
              {m.text !== undefined && (
                <details open={m.html === undefined}>
                  <summary>Plain-text body</summary>
                  <Pre class="body-text">{m.text}</Pre>
                </details>
              )}
              {m.html === undefined && m.text === undefined && (
                <Empty title="No body is stored for this message." />
              )}
            </section>
            <section aria-labelledby="headers-title">
              <h2 id="headers-title">Headers and tags</h2>
              <KeyValues caption="Headers" values={m.headers} empty="No custom headers." />
              <KeyValues caption="Tags" values={m.tags} empty="No tags." />
            </section>
          </>
        )}
      </Show>
    </>
  );
}

function Timeline({ events }: { events: Event[] }) {
  if (events.length === 0) return <p class="muted">No events yet.</p>;
  return (
    <ol class="timeline">
      {events.map((e) => (
        <li key={e.id} class={`tl tl-${e.type.replace('email.', '')}`}>
          <span class="tl-what">{LABELS[e.type] ?? e.type}</span> <When at={e.created_at} />
          {eventNote(e) && <p class="tl-note">{eventNote(e)}</p>}
        </li>
      ))}
    </ol>
  );
}

function KeyValues({
  caption,
  values,
  empty,
}: {
  caption: string;
  values: Record<string, string>;
  empty: string;
}) {
  const entries = Object.entries(values);
  if (entries.length === 0) return <p class="muted">{empty}</p>;
  return (
    <Table caption={caption} head={['Name', 'Value']}>
      {entries.map(([k, v]) => (
        <tr key={k}>
          <td>
            <code>{k}</code>
          </td>
          <td class="wrap">{v}</td>
        </tr>
      ))}
    </Table>
  );
}
