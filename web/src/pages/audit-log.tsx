/** The organization's audit log, newest first. */
import { useState } from 'preact/hooks';
import { get } from '../api';
import { Empty, PageHeader, Select, Show, Table, useLoad, When } from '../ui';

interface Entry {
  id: string;
  actor: { type: string; id: string; auth_method: string | null };
  action: string;
  target: string | null;
  project_id: string | null;
  ip_address: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
  created_at: string;
}

export function AuditLog() {
  const [limit, setLimit] = useState('100');
  const load = useLoad(() => get<{ data: Entry[] }>(`/v1/dashboard/audit-logs?limit=${limit}`), [limit]);
  return (
    <>
      <PageHeader title="Audit log">
        <Select
          label="Show"
          value={limit}
          options={[
            ['100', 'Latest 100'],
            ['250', 'Latest 250'],
            ['500', 'Latest 500'],
          ]}
          onChange={(e) => setLimit(e.currentTarget.value)}
        />
      </PageHeader>
      <Show load={load}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="Nothing recorded yet." />
          ) : (
            <Table caption="Audit records, newest first" head={['When', 'Who', 'Action', 'Target', 'From']}>
              {page.data.map((e) => (
                <tr key={e.id}>
                  <td class="nowrap">
                    <When at={e.created_at} />
                  </td>
                  <td>
                    <code>{e.actor.id}</code>
                    <span class="muted">
                      {' '}
                      {e.actor.type}
                      {e.actor.auth_method ? ` · ${e.actor.auth_method}` : ''}
                    </span>
                  </td>
                  <td>
                    <code>{e.action}</code>
                  </td>
                  <td class="clip">{e.target ?? <span class="muted">—</span>}</td>
                  <td class="clip">{e.ip_address ?? <span class="muted">—</span>}</td>
                </tr>
              ))}
            </Table>
          )
        }
      </Show>
    </>
  );
}
