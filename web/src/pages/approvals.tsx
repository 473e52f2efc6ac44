/** Agent sends held for a person: what each will send, approve (queued as a normal send) or reject with a note. */
import { useState } from 'preact/hooks';
import { get, post, query } from '../api';
import { ApprovalPolicy } from './approval-policy';
import {
  ActionButton,
  CursorPager,
  Empty,
  Field,
  Form,
  PageHeader,
  Pre,
  Select,
  Show,
  Status,
  useCursor,
  useLoad,
  When,
} from '../ui';

interface Approval {
  id: string;
  status: string;
  client: { client_id: string; client_name: string };
  authorized_by: { user_id: string; email: string };
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  note: string | null;
  message: {
    id: string;
    from: string;
    to: string[];
    cc: string[];
    bcc: string[];
    subject: string;
    html: string | null;
    text: string | null;
    scheduled_at: string | null;
  } | null;
}

export function Approvals() {
  const [status, setStatus] = useState('pending');
  const cursor = useCursor();
  const load = useLoad(
    () =>
      get<{ data: Approval[]; has_more: boolean }>(
        `/v1/dashboard/send-approvals${query({ status, limit: 20, after: cursor.after })}`,
      ),
    [status, cursor.after],
  );
  return (
    <>
      <PageHeader title="Agent sends">
        <Select
          label="Show"
          value={status}
          options={[
            ['pending', 'Awaiting approval'],
            ['approved', 'Approved'],
            ['rejected', 'Rejected'],
            ['expired', 'Expired'],
            ['all', 'All'],
          ]}
          onChange={(e) => {
            cursor.reset();
            setStatus(e.currentTarget.value);
          }}
        />
      </PageHeader>
      <p class="muted">Messages sent by connected applications wait here until a member approves them.</p>
      <Show load={load}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty title={status === 'pending' ? 'Nothing awaits approval.' : 'No agent sends.'} />
          ) : (
            <>
              {page.data.map((a) => (
                <ApprovalCard key={a.id} approval={a} onDecided={load.reload} />
              ))}
              <CursorPager
                cursor={cursor}
                hasMore={page.has_more}
                lastId={page.data[page.data.length - 1]?.id}
              />
            </>
          )
        }
      </Show>
      <ApprovalPolicy />
    </>
  );
}

function ApprovalCard({ approval: a, onDecided }: { approval: Approval; onDecided: () => void }) {
  const [rejecting, setRejecting] = useState(false);
  const [note, setNote] = useState('');
  const m = a.message;
  return (
    <article class="card" aria-label={`Send by ${a.client.client_name}: ${m?.subject ?? a.id}`}>
      <header class="card-header">
        <h2>{m?.subject || '(no subject)'}</h2>
        <Status value={a.status} />
      </header>
      <dl class="facts">
        <dt>Application</dt>
        <dd>
          {a.client.client_name} <span class="muted">(connected by {a.authorized_by.email})</span>
        </dd>
        {m && (
          <>
            <dt>From</dt>
            <dd>{m.from}</dd>
            <dt>To</dt>
            <dd>{[...m.to, ...m.cc, ...m.bcc].join(', ')}</dd>
          </>
        )}
        <dt>Asked</dt>
        <dd>
          <When at={a.created_at} />
        </dd>
        {a.status === 'pending' ? (
          <>
            <dt>Expires</dt>
            <dd>
              <When at={a.expires_at} />
            </dd>
          </>
        ) : (
          <>
            <dt>Decided</dt>
            <dd>
              <When at={a.decided_at} />
              {a.note && ` · ${a.note}`}
            </dd>
          </>
        )}
      </dl>
      {m?.text && (
        <details>
          <summary>Text</summary>
          <Pre class="body-text">{m.text}</Pre>
        </details>
      )}
      {m?.html && (
        <details>
          <summary>HTML source</summary>
          <Pre>{m.html}</Pre>
        </details>
      )}
      {a.status === 'pending' && (
        <div class="decide">
          <ActionButton
            class="primary"
            label={`Approve and send ${m?.subject ?? a.id}`}
            action={async () => {
              await post(`/v1/dashboard/send-approvals/${a.id}/approve`);
              onDecided();
            }}
          >
            Approve and send
          </ActionButton>{' '}
          {!rejecting ? (
            <button type="button" onClick={() => setRejecting(true)}>
              Reject…
            </button>
          ) : (
            <Form
              label={`Reject ${m?.subject ?? a.id}`}
              class="form inline"
              submit="Reject"
              busy="Rejecting…"
              onSubmit={async () => {
                await post(
                  `/v1/dashboard/send-approvals/${a.id}/reject`,
                  note.trim() ? { note: note.trim() } : {},
                );
                onDecided();
              }}
            >
              <Field
                label="Note for the application (optional)"
                maxLength={500}
                value={note}
                onInput={(e) => setNote(e.currentTarget.value)}
              />
            </Form>
          )}
        </div>
      )}
    </article>
  );
}
