/** Sending domains: add one, publish its records (each copyable, with its state), verify. */
import { useState } from 'preact/hooks';
import { del, get, post, query } from '../api';
import {
  ActionButton,
  CopyButton,
  CursorPager,
  Empty,
  Field,
  Form,
  PageHeader,
  Show,
  Status,
  useCursor,
  useLoad,
  When,
  ScrollBox,
} from '../ui';

interface DnsRecord {
  purpose: string;
  type: string;
  host: string;
  name: string;
  value: string;
  priority?: number;
  required: boolean;
  status: string;
  reason?: string;
  checked_at: string | null;
}
interface Domain {
  id: string;
  name: string;
  region: string;
  status: string;
  records: DnsRecord[];
  config_issues: { level: string; message: string }[];
  created_at: string;
  verified_at: string | null;
  last_checked_at: string | null;
}

export function Domains() {
  const cursor = useCursor();
  const [adding, setAdding] = useState(false);
  const [name, setName] = useState('');
  const load = useLoad(
    () =>
      get<{ data: Domain[]; has_more: boolean }>(`/v1/domains${query({ limit: 20, after: cursor.after })}`),
    [cursor.after],
  );
  return (
    <>
      <PageHeader title="Domains">
        <button type="button" class="primary" onClick={() => setAdding(!adding)} aria-expanded={adding}>
          Add domain
        </button>
      </PageHeader>
      {adding && (
        <Form
          label="Add a domain"
          submit="Add domain"
          busy="Adding…"
          class="form inline"
          onSubmit={async () => {
            await post('/v1/domains', { name: name.trim() });
            setName('');
            setAdding(false);
            load.reload();
          }}
        >
          <Field
            label="Domain name"
            placeholder="mail.example.com"
            required
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </Form>
      )}
      <Show load={load}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No domains yet.">
              Add the domain you send from, publish its DNS records, then verify it. Until then only the
              shared sandbox sender may send, to your organization’s members.
            </Empty>
          ) : (
            <>
              {page.data.map((d) => (
                <DomainCard key={d.id} domain={d} onChange={load.reload} />
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
    </>
  );
}

function DomainCard({ domain, onChange }: { domain: Domain; onChange: () => void }) {
  const [current, setCurrent] = useState(domain);
  return (
    <section class="card" aria-labelledby={`dom-${current.id}`}>
      <header class="card-header">
        <h2 id={`dom-${current.id}`}>{current.name}</h2>
        <Status value={current.status} />
        <span class="muted">
          Last checked <When at={current.last_checked_at} />
        </span>
        <ActionButton
          class="primary"
          label={`Verify DNS of ${current.name}`}
          action={async () => {
            setCurrent(await post<Domain>(`/v1/domains/${current.id}/verify`));
            onChange();
          }}
        >
          Verify DNS
        </ActionButton>
        <ActionButton
          label={`Delete ${current.name}`}
          confirm={`Delete ${current.name} and its DKIM keys? Mail from it can no longer be sent.`}
          action={async () => {
            await del(`/v1/domains/${current.id}`);
            onChange();
          }}
        >
          Delete
        </ActionButton>
      </header>
      {current.config_issues.map((issue) => (
        <p key={issue.message} class={`note ${issue.level}`}>
          {issue.message}
        </p>
      ))}
      <ScrollBox label={`DNS records of ${current.name}`}>
        <table>
          <caption class="sr-only">DNS records to publish for {current.name}</caption>
          <thead>
            <tr>
              <th scope="col">Purpose</th>
              <th scope="col">Type</th>
              <th scope="col">Name</th>
              <th scope="col">Value</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {current.records.map((r) => (
              <tr key={`${r.purpose}:${r.name}:${r.type}`}>
                <td>
                  {r.purpose}
                  {!r.required && <span class="muted"> (optional)</span>}
                </td>
                <td>
                  <code>{r.type}</code>
                  {r.priority !== undefined && <span class="muted"> {r.priority}</span>}
                </td>
                <td>
                  <div class="copy-row">
                    <code class="value">{r.name}</code>
                    <CopyButton text={r.name} label={`Copy the ${r.purpose} record name`} />
                  </div>
                </td>
                <td>
                  <div class="copy-row">
                    <code class="value">{r.value}</code>
                    <CopyButton text={r.value} label={`Copy the ${r.purpose} record value`} />
                  </div>
                </td>
                <td>
                  <Status value={r.status} />
                  {r.reason && <p class="hint">{r.reason}</p>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </section>
  );
}
