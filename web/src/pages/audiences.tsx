/**
 * Audiences: the lists, a new one; one audience's contacts with their consent, added one at a time
 * or imported from a CSV or JSON-lines file with a report of the rows refused.
 */
import { useId, useState } from 'preact/hooks';
import { api, del, get, post, query, RawBody } from '../api';
import { Link } from '../router';
import {
  ActionButton,
  CursorPager,
  Empty,
  Field,
  Form,
  PageHeader,
  Select,
  Show,
  Status,
  Table,
  useCursor,
  useLoad,
  When,
} from '../ui';

interface Audience {
  id: string;
  name: string;
  description: string | null;
  contacts?: { subscribed: number; unsubscribed: number };
  created_at: string;
}
interface Contact {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  status: string;
  consent_source: string;
  consent_at: string;
  unsubscribed_at: string | null;
}

export function Audiences() {
  const cursor = useCursor();
  const [name, setName] = useState('');
  const load = useLoad(
    () =>
      get<{ data: Audience[]; has_more: boolean }>(
        `/v1/audiences${query({ limit: 25, after: cursor.after })}`,
      ),
    [cursor.after],
  );
  return (
    <>
      <PageHeader title="Audiences" />
      <Form
        label="New audience"
        class="form inline"
        submit="Create audience"
        busy="Creating…"
        onSubmit={async () => {
          await post('/v1/audiences', { name: name.trim() });
          setName('');
          load.reload();
        }}
      >
        <Field
          label="Name"
          required
          maxLength={200}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </Form>
      <Show load={load}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No audiences yet.">
              An audience holds contacts who agreed to receive your broadcasts.
            </Empty>
          ) : (
            <>
              <Table caption="Audiences" head={['Name', 'Subscribed', 'Unsubscribed', 'Created']}>
                {page.data.map((a) => (
                  <tr key={a.id}>
                    <td>
                      <Link to={`/audiences/${a.id}`}>{a.name}</Link>
                    </td>
                    <td>{a.contacts?.subscribed ?? '—'}</td>
                    <td>{a.contacts?.unsubscribed ?? '—'}</td>
                    <td class="nowrap">
                      <When at={a.created_at} />
                    </td>
                  </tr>
                ))}
              </Table>
              <CursorPager
                cursor={cursor}
                hasMore={page.has_more}
                lastId={page.data[page.data.length - 1]?.id}
              />
            </>
          )
        }
      </Show>
    </>
  );
}

export function AudienceDetail({ params }: { params: Record<string, string> }) {
  const id = params.id as string;
  const audience = useLoad(() => get<Audience>(`/v1/audiences/${id}`), [id]);
  const cursor = useCursor();
  const [status, setStatus] = useState('');
  const contacts = useLoad(
    () =>
      get<{ data: Contact[]; has_more: boolean }>(
        `/v1/audiences/${id}/contacts${query({ limit: 25, after: cursor.after, status })}`,
      ),
    [id, cursor.after, status],
  );
  const [form, setForm] = useState({ email: '', first_name: '', consent_source: '' });
  return (
    <>
      <p class="crumbs">
        <Link to="/audiences">Audiences</Link> / <span>{audience.data?.name ?? id}</span>
      </p>
      <PageHeader title={audience.data?.name ?? 'Audience'} />
      <Form
        label="Add a contact"
        class="form inline"
        submit="Add contact"
        busy="Adding…"
        onSubmit={async () => {
          await post(`/v1/audiences/${id}/contacts`, {
            email: form.email.trim(),
            consent_source: form.consent_source.trim(),
            consent_at: new Date().toISOString(),
            ...(form.first_name.trim() ? { first_name: form.first_name.trim() } : {}),
          });
          setForm({ email: '', first_name: '', consent_source: form.consent_source });
          contacts.reload();
        }}
      >
        <Field
          label="Email"
          type="email"
          required
          value={form.email}
          onInput={(e) => setForm({ ...form, email: e.currentTarget.value })}
        />
        <Field
          label="First name"
          value={form.first_name}
          onInput={(e) => setForm({ ...form, first_name: e.currentTarget.value })}
        />
        <Field
          label="How they agreed"
          required
          placeholder="signup form opt-in"
          value={form.consent_source}
          onInput={(e) => setForm({ ...form, consent_source: e.currentTarget.value })}
        />
      </Form>
      <ImportContacts audienceId={id} onImported={contacts.reload} />
      <div class="filters">
        <Select
          label="Show"
          value={status}
          options={[
            ['', 'Every contact'],
            ['subscribed', 'Subscribed'],
            ['unsubscribed', 'Unsubscribed'],
          ]}
          onChange={(e) => {
            cursor.reset();
            setStatus(e.currentTarget.value);
          }}
        />
      </div>
      <Show load={contacts}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No contacts." />
          ) : (
            <>
              <Table caption="Contacts" head={['Email', 'Name', 'State', 'Consent', '']}>
                {page.data.map((c) => (
                  <tr key={c.id}>
                    <td class="clip">{c.email}</td>
                    <td class="clip">
                      {[c.first_name, c.last_name].filter(Boolean).join(' ') || <span class="muted">—</span>}
                    </td>
                    <td>
                      <Status value={c.status} />
                    </td>
                    <td class="clip">
                      {c.consent_source}, <When at={c.consent_at} />
                    </td>
                    <td>
                      <ActionButton
                        label={`Delete ${c.email}`}
                        confirm={`Delete ${c.email} and its consent record?`}
                        action={async () => {
                          await del(`/v1/audiences/${id}/contacts/${c.id}`);
                          contacts.reload();
                        }}
                      >
                        Delete
                      </ActionButton>
                    </td>
                  </tr>
                ))}
              </Table>
              <CursorPager
                cursor={cursor}
                hasMore={page.has_more}
                lastId={page.data[page.data.length - 1]?.id}
              />
            </>
          )
        }
      </Show>
    </>
  );
}

interface ImportReport {
  rows: number;
  created: number;
  updated: number;
  refused: number;
  errors: { line: number; email: string | null; error: string }[];
  errors_truncated: boolean;
}

/** Uploads a CSV (header line) or JSON-lines file as it is; the server streams it. */
function ImportContacts({ audienceId, onImported }: { audienceId: string; onImported: () => void }) {
  const [file, setFile] = useState<File>();
  const [report, setReport] = useState<ImportReport>();
  const inputId = useId();
  return (
    <details class="import">
      <summary>Import contacts from a file</summary>
      <Form
        label="Import contacts"
        submit="Import"
        busy="Importing…"
        onSubmit={async () => {
          if (!file) return;
          setReport(undefined);
          const jsonl = /\.(jsonl|ndjson)$/i.test(file.name) || file.type === 'application/x-ndjson';
          const type = jsonl ? 'application/x-ndjson' : 'text/csv';
          setReport(
            await api<ImportReport>(
              'POST',
              `/v1/audiences/${audienceId}/contacts/import`,
              new RawBody(file, type),
            ),
          );
          onImported();
        }}
      >
        <div class="field">
          <label for={inputId}>CSV or JSON-lines file</label>
          <input
            id={inputId}
            type="file"
            required
            accept=".csv,.jsonl,.ndjson,text/csv,application/x-ndjson"
            aria-describedby={`${inputId}-hint`}
            onChange={(e) => setFile(e.currentTarget.files?.[0])}
          />
          <p class="hint" id={`${inputId}-hint`}>
            CSV with a header line: <code>email</code>, <code>consent_source</code>, <code>consent_at</code>{' '}
            (each row needs its consent), <code>first_name</code>, <code>last_name</code>; other columns
            become metadata. Or one JSON contact per line.
          </p>
        </div>
      </Form>
      {report && <ImportResult report={report} />}
    </details>
  );
}

function ImportResult({ report: r }: { report: ImportReport }) {
  return (
    <section aria-label="Import report">
      <p role="status">
        {r.rows} rows read: {r.created} added, {r.updated} updated, {r.refused} refused.
      </p>
      {r.errors.length > 0 && (
        <Table caption="Refused rows" head={['Line', 'Email', 'Why']}>
          {r.errors.map((e) => (
            <tr key={e.line}>
              <td>{e.line}</td>
              <td class="clip">{e.email ?? <span class="muted">—</span>}</td>
              <td>{e.error}</td>
            </tr>
          ))}
        </Table>
      )}
      {r.errors_truncated && <p class="hint">Only the first {r.errors.length} refused rows are listed.</p>}
    </section>
  );
}
