/**
 * One broadcast: what it sends and to whom, its progress while it goes out (recipients, sent,
 * delivered, bounced, complained, unsubscribed, left out as suppressed), refreshed every few seconds
 * until it is done; send now, schedule for later, or cancel.
 */
import { useEffect, useState } from 'preact/hooks';
import { get, patch, post, query } from '../api';
import { Link } from '../router';
import { storedProject } from '../session';
import { DraftFields, draftFormOf, updateBody } from './broadcast-form';
import { ActionButton, Field, Form, PageHeader, Pre, Show, Stat, Status, useLoad, When } from '../ui';

interface Progress {
  recipients: number | null;
  sent: number;
  delivered: number;
  bounced: number;
  complained: number;
  failed: number;
  unsubscribed: number;
  suppressed: number;
}

interface Broadcast {
  id: string;
  name: string;
  audience_id: string;
  from: string;
  reply_to: string[];
  subject: string | null;
  html: string | null;
  text: string | null;
  template: string | null;
  status: string;
  send_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  cancelled_at: string | null;
  error: string | null;
  progress?: Progress;
  created_at: string;
  updated_at: string;
}

/** Worth refreshing: going out or about to, or sent with messages whose outcome is not known yet. */
function followed(b: Broadcast): boolean {
  if (b.status === 'sending') return true;
  if (b.status === 'scheduled') return Date.parse(b.send_at ?? '') < Date.now() + 60_000;
  const p = b.progress;
  return b.status === 'sent' && p !== undefined && p.delivered + p.bounced + p.failed < p.sent;
}

export function BroadcastDetail({ params }: { params: Record<string, string> }) {
  const id = params.id as string;
  const load = useLoad(() => get<Broadcast>(`/v1/broadcasts/${encodeURIComponent(id)}`), [id]);
  const audience = useLoad(
    async () =>
      load.data
        ? get<{ name: string }>(`/v1/audiences/${encodeURIComponent(load.data.audience_id)}`)
        : undefined,
    [load.data?.audience_id],
  );
  const live = load.data !== undefined && followed(load.data);
  useEffect(() => {
    if (!live) return;
    const timer = window.setInterval(load.reload, 2000);
    return () => window.clearInterval(timer);
  }, [live]);
  return (
    <>
      <p class="crumbs">
        <Link to="/broadcasts">Broadcasts</Link> / <span>{load.data?.name ?? id}</span>
      </p>
      <PageHeader title={load.data?.name ?? 'Broadcast'} />
      <Show load={load}>
        {(b) => (
          <>
            <dl class="facts">
              <dt>State</dt>
              <dd>
                <Status value={b.status} />
                {b.error && <p class="hint">{b.error}</p>}
              </dd>
              <dt>Audience</dt>
              <dd>
                <Link to={`/audiences/${b.audience_id}`}>{audience.data?.name ?? b.audience_id}</Link>
              </dd>
              <dt>From</dt>
              <dd>{b.from}</dd>
              {b.reply_to.length > 0 && (
                <>
                  <dt>Reply to</dt>
                  <dd>{b.reply_to.join(', ')}</dd>
                </>
              )}
              <dt>Subject</dt>
              <dd>{b.template ? `template ${b.template}` : (b.subject ?? '—')}</dd>
              <dt>Send at</dt>
              <dd>
                <When at={b.send_at} />
              </dd>
              <dt>Started</dt>
              <dd>
                <When at={b.started_at} />
              </dd>
              <dt>{b.status === 'cancelled' ? 'Cancelled' : 'Finished'}</dt>
              <dd>
                <When at={b.status === 'cancelled' ? b.cancelled_at : b.finished_at} />
              </dd>
            </dl>
            <ProgressPanel progress={b.progress} live={live} />
            <Actions broadcast={b} onChanged={load.reload} />
            <EditDraft broadcast={b} onChanged={load.reload} />
            {b.html && (
              <>
                <h2>HTML</h2>
                <iframe
                  key={b.updated_at}
                  class="preview"
                  title={`HTML of ${b.subject || b.name}`}
                  sandbox=""
                  src={`/v1/dashboard/broadcasts/${encodeURIComponent(b.id)}/preview${query({ project: storedProject() })}`}
                />
                <details>
                  <summary>HTML source</summary>
                  <Pre>{b.html}</Pre>
                </details>
              </>
            )}
            {b.text && (
              <details open={!b.html}>
                <summary>Text</summary>
                <Pre>{b.text}</Pre>
              </details>
            )}
          </>
        )}
      </Show>
    </>
  );
}

function ProgressPanel({ progress: p, live }: { progress: Progress | undefined; live: boolean }) {
  if (!p) return null;
  const n = (v: number) => v.toLocaleString('en');
  const of = (v: number) =>
    p.recipients ? `${Math.round((100 * v) / Math.max(p.recipients, 1))}%` : undefined;
  return (
    <section aria-labelledby="progress-title">
      <h2 id="progress-title">Progress{live && <span class="muted"> (updating)</span>}</h2>
      {p.recipients !== null && (
        <p>
          <label for="broadcast-progress">
            {n(p.sent)} of {n(p.recipients)} messages queued
          </label>{' '}
          <progress id="broadcast-progress" max={Math.max(p.recipients, 1)} value={p.sent} />
        </p>
      )}
      <dl class="stats">
        <Stat label="Recipients" value={p.recipients === null ? '—' : n(p.recipients)} />
        <Stat label="Sent" value={n(p.sent)} />
        <Stat label="Delivered" value={n(p.delivered)} note={of(p.delivered)} />
        <Stat label="Bounced" value={n(p.bounced)} note={of(p.bounced)} />
        <Stat label="Complained" value={n(p.complained)} note={of(p.complained)} />
        <Stat label="Failed" value={n(p.failed)} />
        <Stat label="Unsubscribed" value={n(p.unsubscribed)} note={of(p.unsubscribed)} />
        <Stat label="Left out (suppressed)" value={n(p.suppressed)} />
      </dl>
    </section>
  );
}

function Actions({ broadcast: b, onChanged }: { broadcast: Broadcast; onChanged: () => void }) {
  const [at, setAt] = useState('');
  if (b.status !== 'draft' && b.status !== 'scheduled') return null;
  return (
    <section aria-labelledby="send-title">
      <h2 id="send-title">Send</h2>
      <p>
        {b.status === 'draft' && (
          <ActionButton
            class="primary"
            confirm={`Send ${b.name} to its audience now?`}
            action={async () => {
              await post(`/v1/broadcasts/${b.id}/schedule`);
              onChanged();
            }}
          >
            Send now
          </ActionButton>
        )}{' '}
        <ActionButton
          confirm={`Cancel ${b.name}? It will not be sent.`}
          action={async () => {
            await post(`/v1/broadcasts/${b.id}/cancel`);
            onChanged();
          }}
        >
          Cancel broadcast
        </ActionButton>
      </p>
      {b.status === 'draft' && (
        <Form
          label="Schedule"
          class="form inline"
          submit="Schedule"
          busy="Scheduling…"
          onSubmit={async () => {
            await post(`/v1/broadcasts/${b.id}/schedule`, { send_at: new Date(at).toISOString() });
            onChanged();
          }}
        >
          <Field
            label="Send at (your local time)"
            type="datetime-local"
            required
            value={at}
            onInput={(e) => setAt(e.currentTarget.value)}
            hint="Up to 30 days ahead."
          />
        </Form>
      )}
    </section>
  );
}

/** A draft can be changed (audience, name, sender, reply-to, content) until it is scheduled or sent. */
function EditDraft({ broadcast: b, onChanged }: { broadcast: Broadcast; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const [form, setForm] = useState(() => draftFormOf(b));
  const audiences = useLoad(
    async () =>
      editing ? get<{ data: { id: string; name: string }[] }>('/v1/audiences?limit=100') : undefined,
    [editing],
  );
  if (b.status !== 'draft') return null;
  return (
    <section aria-labelledby="edit-title">
      <h2 id="edit-title">Draft</h2>
      <p>
        <button
          type="button"
          aria-expanded={editing}
          onClick={() => {
            setForm(draftFormOf(b));
            setEditing(!editing);
          }}
        >
          Edit draft
        </button>
      </p>
      {editing && (
        <Form
          label="Edit draft"
          submit="Save changes"
          busy="Saving…"
          onSubmit={async () => {
            await patch(`/v1/broadcasts/${encodeURIComponent(b.id)}`, updateBody(form, b.template === null));
            setEditing(false);
            onChanged();
          }}
        >
          {b.template && <p class="hint">Its content is the template {b.template}; change it there.</p>}
          <DraftFields
            form={form}
            onChange={setForm}
            audiences={audiences.data?.data ?? []}
            content={b.template === null}
          />
        </Form>
      )}
    </section>
  );
}
