/** The organization's audit log, newest first, paged, filtered by the start of the action. */
import { useState } from 'preact/hooks';
import { get, query } from '../api';
import { CursorPager, Empty, Field, Form, PageHeader, Show, Table, useCursor, useLoad, When } from '../ui';

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
  const cursor = useCursor();
  const [action, setAction] = useState('');
  const [filter, setFilter] = useState('');
  const load = useLoad(
    () =>
      get<{ data: Entry[]; has_more: boolean }>(
        `/v1/dashboard/audit-logs${query({ limit: 50, after: cursor.after, action: filter })}`,
      ),
    [cursor.after, filter],
  );
  return (
    <>
      <PageHeader title="Audit log" />
      <Form
        label="Filter the audit log"
        class="form inline"
        submit="Filter"
        onSubmit={async () => {
          cursor.reset();
          setFilter(action.trim());
        }}
      >
        <Field
          label="Action starts with"
          placeholder="member. or POST /v1/domains"
          value={action}
          onInput={(e) => setAction(e.currentTarget.value)}
        />
      </Form>
      <Show load={load}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty title={filter ? 'No records with this action.' : 'Nothing recorded yet.'} />
          ) : (
            <>
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
                      <Refusal details={e.details} />
                    </td>
                    <td class="clip">{e.target ?? <span class="muted">—</span>}</td>
                    <td class="clip">{e.ip_address ?? <span class="muted">—</span>}</td>
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

/** Under a refusal's action: the route and reason, and how many times it happened that minute. */
function Refusal({ details }: { details: Record<string, unknown> }) {
  const { route, reason, count } = details;
  if (typeof reason !== 'string') return null;
  const times = typeof count === 'number' && count > 1 ? ` · ${count} times` : '';
  return (
    <span class="muted">
      {' '}
      {typeof route === 'string' ? `${route} · ` : ''}
      {reason.replaceAll('_', ' ')}
      {times}
    </span>
  );
}
