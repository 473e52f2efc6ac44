/**
 * One contact of an audience: its state, the latest consent, its metadata, every subscription and
 * unsubscription in order (with the broadcast it left through), and its names edited.
 */
import { useState } from 'preact/hooks';
import { get, patch } from '../api';
import { Link } from '../router';
import { Field, Form, PageHeader, Show, Status, Table, useLoad, When } from '../ui';

interface Contact {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  metadata: Record<string, string>;
  status: string;
  consent_source: string;
  consent_at: string;
  unsubscribed_at: string | null;
  created_at: string;
  history?: { kind: string; source: string; at: string; broadcast_id: string | null; recorded_at: string }[];
}

export function ContactDetail({ params }: { params: Record<string, string> }) {
  const audienceId = params.id as string;
  const contactId = params.contact as string;
  const audience = useLoad(() => get<{ name: string }>(`/v1/audiences/${audienceId}`), [audienceId]);
  const load = useLoad(
    () => get<Contact>(`/v1/audiences/${audienceId}/contacts/${contactId}`),
    [audienceId, contactId],
  );
  return (
    <>
      <p class="crumbs">
        <Link to="/audiences">Audiences</Link> /{' '}
        <Link to={`/audiences/${audienceId}`}>{audience.data?.name ?? audienceId}</Link> /{' '}
        <span>{load.data?.email ?? contactId}</span>
      </p>
      <PageHeader title={load.data?.email ?? 'Contact'} />
      <Show load={load}>
        {(c) => (
          <>
            <dl class="facts">
              <dt>State</dt>
              <dd>
                <Status value={c.status} />
                {c.unsubscribed_at && (
                  <>
                    {' '}
                    since <When at={c.unsubscribed_at} />
                  </>
                )}
              </dd>
              <dt>Consent</dt>
              <dd>
                {c.consent_source}, <When at={c.consent_at} />
              </dd>
              <dt>Added</dt>
              <dd>
                <When at={c.created_at} />
              </dd>
              {Object.entries(c.metadata).map(([key, value]) => (
                <>
                  <dt key={`k-${key}`}>{key}</dt>
                  <dd key={`v-${key}`}>{value}</dd>
                </>
              ))}
            </dl>
            <h2>History</h2>
            <Table caption="Consent history, oldest first" head={['When', 'What', 'How', 'Broadcast']}>
              {(c.history ?? []).map((h) => (
                <tr key={`${h.recorded_at}-${h.kind}`}>
                  <td class="nowrap">
                    <When at={h.at} />
                  </td>
                  <td>
                    <Status value={h.kind} />
                  </td>
                  <td class="wrap">{h.source.replace(/_/g, ' ')}</td>
                  <td>
                    {h.broadcast_id ? (
                      <Link to={`/broadcasts/${h.broadcast_id}`}>{h.broadcast_id}</Link>
                    ) : (
                      <span class="muted">—</span>
                    )}
                  </td>
                </tr>
              ))}
            </Table>
            <Names
              contact={c}
              path={`/v1/audiences/${audienceId}/contacts/${contactId}`}
              onSaved={load.reload}
            />
          </>
        )}
      </Show>
    </>
  );
}

function Names({ contact, path, onSaved }: { contact: Contact; path: string; onSaved: () => void }) {
  const [first, setFirst] = useState(contact.first_name ?? '');
  const [last, setLast] = useState(contact.last_name ?? '');
  const [saved, setSaved] = useState(false);
  return (
    <Form
      label="Names"
      class="form inline"
      submit="Save names"
      busy="Saving…"
      onSubmit={async () => {
        setSaved(false);
        await patch(path, { first_name: first.trim() || null, last_name: last.trim() || null });
        setSaved(true);
        onSaved();
      }}
    >
      <Field label="First name" value={first} onInput={(e) => setFirst(e.currentTarget.value)} />
      <Field label="Last name" value={last} onInput={(e) => setLast(e.currentTarget.value)} />
      {saved && (
        <p class="ok" role="status">
          Names saved.
        </p>
      )}
    </Form>
  );
}
