/**
 * The reputation center: state per sending domain and provider lane, the dedicated IP (asked for,
 * reviewed, warming up), and mailbox-provider connections.
 */
import { useState } from 'preact/hooks';
import { del, get, post } from '../api';
import { type DedicatedIps, DedicatedIpsSection } from './dedicated-ips';
import {
  ActionButton,
  Empty,
  Field,
  Form,
  PageHeader,
  Select,
  Show,
  Status,
  Table,
  useLoad,
  When,
} from '../ui';

interface Window {
  days: number;
  delivered: number;
  bounce_rate: number;
  complaint_rate: number;
  low_volume?: boolean;
}
interface Entity {
  name: string;
  state: string;
  reasons: string[];
  windows: Window[];
}
interface Report {
  generated_at: string;
  state: string;
  domains: Entity[];
  lanes: Entity[];
  dedicated_ips?: DedicatedIps;
}
interface Connection {
  id: string;
  provider: string;
  status: string;
  last_synced_at: string | null;
  last_error: string | null;
}

const PROVIDERS: ReadonlyArray<[string, string]> = [
  ['provider_a_postmaster', 'Google Postmaster Tools'],
  ['provider_b_snds', 'Microsoft SNDS'],
];
const pct = (n: number) => `${(n * 100).toFixed(2)}%`;

export function Reputation() {
  const report = useLoad(() => get<Report>('/v1/reputation'), []);
  const connections = useLoad(() => get<{ data: Connection[] }>('/v1/dashboard/reputation/connections'), []);
  const [provider, setProvider] = useState('provider_a_postmaster');
  const [credential, setCredential] = useState('');
  return (
    <>
      <PageHeader title="Reputation" />
      <Show load={report}>
        {(r) => (
          <>
            <p>
              Overall: <Status value={r.state} />{' '}
              <span class="muted">
                (as of <When at={r.generated_at} />)
              </span>
            </p>
            {(['domains', 'lanes'] as const).map((kind) => (
              <section key={kind} aria-labelledby={`rep-${kind}`}>
                <h2 id={`rep-${kind}`}>{kind === 'domains' ? 'Sending domains' : 'Provider lanes'}</h2>
                {r[kind].length === 0 ? (
                  <Empty title="Nothing sent yet." />
                ) : (
                  <Table
                    caption={kind === 'domains' ? 'Sending domains' : 'Provider lanes'}
                    head={['Name', 'State', 'Delivered (7 days)', 'Bounce rate', 'Complaint rate', 'Why']}
                  >
                    {r[kind].map((e) => {
                      const week = e.windows.find((w) => w.days === 7) ?? e.windows[0];
                      return (
                        <tr key={e.name}>
                          <td>{e.name}</td>
                          <td>
                            <Status value={e.state} />
                          </td>
                          <td>{week?.delivered ?? '—'}</td>
                          <td>{week ? pct(week.bounce_rate) : '—'}</td>
                          <td>{week ? pct(week.complaint_rate) : '—'}</td>
                          <td class="wrap">{e.reasons.join(' ') || <span class="muted">—</span>}</td>
                        </tr>
                      );
                    })}
                  </Table>
                )}
              </section>
            ))}
            {r.dedicated_ips && <DedicatedIpsSection ips={r.dedicated_ips} onChanged={report.reload} />}
          </>
        )}
      </Show>
      <section aria-labelledby="connections-title">
        <h2 id="connections-title">Mailbox provider connections</h2>
        <Form
          label="Connect a provider"
          class="form inline"
          submit="Connect"
          busy="Checking the credential…"
          onSubmit={async () => {
            await post('/v1/dashboard/reputation/connections', { provider, credential });
            setCredential('');
            connections.reload();
          }}
        >
          <Select
            label="Provider"
            value={provider}
            options={PROVIDERS}
            onChange={(e) => setProvider(e.currentTarget.value)}
          />
          <Field
            label="Credential"
            type="password"
            autocomplete="off"
            required
            hint="Stored sealed, never shown again."
            value={credential}
            onInput={(e) => setCredential(e.currentTarget.value)}
          />
        </Form>
        <Show load={connections}>
          {(page) =>
            page.data.length === 0 ? (
              <Empty title="No connections." />
            ) : (
              <Table caption="Connections" head={['Provider', 'State', 'Last sync', '']}>
                {page.data.map((c) => (
                  <tr key={c.id}>
                    <td>{PROVIDERS.find(([p]) => p === c.provider)?.[1] ?? c.provider}</td>
                    <td>
                      <Status value={c.status} />
                      {c.last_error && <p class="hint">{c.last_error}</p>}
                    </td>
                    <td class="nowrap">
                      <When at={c.last_synced_at} />
                    </td>
                    <td class="nowrap">
                      <ActionButton
                        label={`Sync ${c.provider}`}
                        action={async () => {
                          await post(`/v1/dashboard/reputation/connections/${c.id}/sync`);
                          connections.reload();
                        }}
                      >
                        Sync
                      </ActionButton>{' '}
                      <ActionButton
                        label={`Disconnect ${c.provider}`}
                        confirm="Disconnect? The credential is erased."
                        action={async () => {
                          await del(`/v1/dashboard/reputation/connections/${c.id}`);
                          connections.reload();
                        }}
                      >
                        Disconnect
                      </ActionButton>
                    </td>
                  </tr>
                ))}
              </Table>
            )
          }
        </Show>
      </section>
    </>
  );
}
