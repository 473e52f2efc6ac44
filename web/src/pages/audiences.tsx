/**
 * Audiences: the lists, a new one; one audience's contacts with their consent, added one at a time
 * or imported from a CSV or JSON-lines file with a report of the rows refused.
 */
import { useState } from 'preact/hooks';
import { del, get, post, query } from '../api';
import { ImportContacts } from './contact-import';
import { Link, navigate } from '../router';
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
      <PageHeader title={audience.data?.name ?? 'Audience'}>
        <ActionButton
          label={`Delete audience ${audience.data?.name ?? id}`}
          confirm="Delete this audience, its contacts and their consent history?"
          action={async () => {
            await del(`/v1/audiences/${id}`);
            navigate('/audiences');
          }}
        >
          Delete audience
        </ActionButton>
      </PageHeader>
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
                    <td class="clip">
                      <Link to={`/audiences/${id}/contacts/${c.id}`}>{c.email}</Link>
                    </td>
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
