/**
 * The service's status as the public status area tells it (GET /v1/status): each component's state,
 * the open incidents and maintenance windows with their updates, and the history, paged. Incidents
 * are opened by Posthorn itself from its measurements, or by an operator from the command line.
 */
import { get, query } from '../api';
import {
  CursorPager,
  Empty,
  PageHeader,
  Show,
  Status as Badge,
  Table,
  useCursor,
  useLoad,
  When,
} from '../ui';

interface Update {
  id: string;
  state: string;
  message: string;
  created_at: string;
}

interface Incident {
  id: string;
  kind: 'incident' | 'maintenance';
  title: string;
  impact: string;
  state: string;
  components: string[];
  automatic: boolean;
  starts_at?: string | null;
  ends_at?: string | null;
  created_at: string;
  resolved_at: string | null;
  updates: Update[];
}

interface StatusReport {
  status: string;
  summary: string;
  updated_at: string;
  components: { id: string; name: string; status: string; updated_at: string; under_maintenance: boolean }[];
  incidents: Incident[];
  maintenance: Incident[];
  history: { data: Incident[]; has_more: boolean };
}

export function SystemStatus() {
  const cursor = useCursor();
  const load = useLoad(
    () => get<StatusReport>(`/v1/status${query({ limit: 20, after: cursor.after })}`),
    [cursor.after],
  );
  return (
    <>
      <PageHeader title="System status">
        <a href="/status">Public status page</a>
        <a href="/v1/status/rss.xml">RSS feed</a>
      </PageHeader>
      <Show load={load}>
        {(s) => {
          const names = new Map(s.components.map((c) => [c.id, c.name]));
          return (
            <>
              <p class="status-summary">
                <Badge value={s.status} /> {s.summary}{' '}
                <span class="muted">
                  (as of <When at={s.updated_at} />)
                </span>
              </p>
              <Table caption="Components" head={['Component', 'State', 'Since']}>
                {s.components.map((c) => (
                  <tr key={c.id}>
                    <td>{c.name}</td>
                    <td>
                      <Badge value={c.status} />
                      {c.under_maintenance && (
                        <>
                          {' '}
                          <Badge value="maintenance" />
                        </>
                      )}
                    </td>
                    <td class="nowrap">
                      <When at={c.updated_at} />
                    </td>
                  </tr>
                ))}
              </Table>
              <h2>Open incidents</h2>
              {s.incidents.length === 0 ? (
                <Empty title="No open incidents." />
              ) : (
                s.incidents.map((i) => <IncidentCard key={i.id} incident={i} names={names} />)
              )}
              <h2>Maintenance</h2>
              {s.maintenance.length === 0 ? (
                <Empty title="No maintenance scheduled." />
              ) : (
                s.maintenance.map((i) => <IncidentCard key={i.id} incident={i} names={names} />)
              )}
              <h2>History</h2>
              {s.history.data.length === 0 ? (
                <Empty title="No incidents yet." />
              ) : (
                <>
                  <Table
                    caption="Incident history"
                    head={['Title', 'Kind', 'State', 'Components', 'Opened', 'Resolved']}
                  >
                    {s.history.data.map((i) => (
                      <tr key={i.id}>
                        <td class="clip">{i.title}</td>
                        <td>{i.kind}</td>
                        <td>
                          <Badge value={i.state} />
                        </td>
                        <td>{i.components.map((c) => names.get(c) ?? c).join(', ')}</td>
                        <td class="nowrap">
                          <When at={i.created_at} />
                        </td>
                        <td class="nowrap">
                          <When at={i.resolved_at} />
                        </td>
                      </tr>
                    ))}
                  </Table>
                  <CursorPager
                    cursor={cursor}
                    hasMore={s.history.has_more}
                    lastId={s.history.data[s.history.data.length - 1]?.id}
                  />
                </>
              )}
              <p class="hint">
                Posthorn opens incidents itself from what it measures; operators open, update and resolve them
                with <code>posthorn admin incidents</code> and schedule windows with{' '}
                <code>posthorn admin maintenance</code>.
              </p>
            </>
          );
        }}
      </Show>
    </>
  );
}

function IncidentCard({ incident: i, names }: { incident: Incident; names: Map<string, string> }) {
  return (
    <article class="card" aria-label={`${i.kind === 'maintenance' ? 'Maintenance' : 'Incident'}: ${i.title}`}>
      <header class="card-header">
        <h3>{i.title}</h3>
        <Badge value={i.state} />
      </header>
      <dl class="facts">
        <dt>Impact</dt>
        <dd>
          {i.impact.replace(/_/g, ' ')}
          {i.automatic && <span class="muted"> · opened by Posthorn</span>}
        </dd>
        <dt>Components</dt>
        <dd>{i.components.map((c) => names.get(c) ?? c).join(', ')}</dd>
        {i.kind === 'maintenance' ? (
          <>
            <dt>Window</dt>
            <dd>
              <When at={i.starts_at} /> to <When at={i.ends_at} />
            </dd>
          </>
        ) : (
          <>
            <dt>Opened</dt>
            <dd>
              <When at={i.created_at} />
            </dd>
          </>
        )}
      </dl>
      {i.updates.length > 0 && (
        <ol class="timeline">
          {i.updates.map((u) => (
            <li key={u.id}>
              <span class="tl-what">{u.state.replace(/_/g, ' ')}</span> <When at={u.created_at} />
              <p class="tl-note">{u.message}</p>
            </li>
          ))}
        </ol>
      )}
    </article>
  );
}
