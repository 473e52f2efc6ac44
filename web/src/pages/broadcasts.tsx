/** Broadcasts: drafts to an audience, scheduled or sent now on the marketing queue, cancelled, with progress. */
import { useState } from 'preact/hooks';
import { get, post, query } from '../api';
import { Link } from '../router';
import { createBody, DraftFields, type DraftForm, EMPTY_DRAFT } from './broadcast-form';
import {
  ActionButton,
  CursorPager,
  Empty,
  Form,
  Loading,
  PageHeader,
  Show,
  Status,
  Table,
  useCursor,
  useLoad,
  When,
} from '../ui';

interface Broadcast {
  id: string;
  name: string;
  audience_id: string;
  from: string;
  subject: string | null;
  status: string;
  send_at: string | null;
  finished_at: string | null;
  error: string | null;
  progress?: { recipients: number | null; sent: number };
  created_at?: string;
}

export function Broadcasts() {
  const cursor = useCursor();
  const load = useLoad(
    () =>
      get<{ data: Broadcast[]; has_more: boolean }>(
        `/v1/broadcasts${query({ limit: 25, after: cursor.after })}`,
      ),
    [cursor.after],
  );
  const audiences = useLoad(
    () => get<{ data: { id: string; name: string }[] }>('/v1/audiences?limit=100'),
    [],
  );
  const [creating, setCreating] = useState(false);
  const [form, setForm] = useState<DraftForm>(EMPTY_DRAFT);
  const names = new Map((audiences.data?.data ?? []).map((a) => [a.id, a.name]));
  return (
    <>
      <PageHeader title="Broadcasts">
        <button type="button" class="primary" aria-expanded={creating} onClick={() => setCreating(!creating)}>
          New broadcast
        </button>
      </PageHeader>
      {/* The form waits for the audiences: a draft saved before they load would have none. */}
      {creating && !audiences.data && <Loading what="Loading audiences" />}
      {creating && audiences.data && (
        <Form
          label="New broadcast"
          submit="Save draft"
          busy="Saving…"
          onSubmit={async () => {
            await post('/v1/broadcasts', createBody(form, audiences.data?.data[0]?.id));
            setCreating(false);
            setForm(EMPTY_DRAFT);
            load.reload();
          }}
        >
          <DraftFields form={form} onChange={setForm} audiences={audiences.data?.data ?? []} />
        </Form>
      )}
      <Show load={load}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No broadcasts yet.">
              A broadcast goes to the subscribed contacts of an audience, with one-click unsubscribe.
            </Empty>
          ) : (
            <>
              <Table caption="Broadcasts" head={['Name', 'Audience', 'State', 'Progress', 'Send at', '']}>
                {page.data.map((b) => (
                  <tr key={b.id}>
                    <td class="clip">
                      <Link to={`/broadcasts/${b.id}`}>{b.name}</Link>
                      {b.error && <p class="hint">{b.error}</p>}
                    </td>
                    <td class="clip">{names.get(b.audience_id) ?? b.audience_id}</td>
                    <td>
                      <Status value={b.status} />
                    </td>
                    <td>
                      {b.progress ? (
                        `${b.progress.sent} / ${b.progress.recipients ?? '?'}`
                      ) : (
                        <span class="muted">—</span>
                      )}
                    </td>
                    <td class="nowrap">
                      <When at={b.send_at} />
                    </td>
                    <td class="nowrap">
                      {b.status === 'draft' && (
                        <ActionButton
                          label={`Send now: ${b.name}`}
                          confirm={`Send ${b.name} to its audience now?`}
                          action={async () => {
                            await post(`/v1/broadcasts/${b.id}/schedule`);
                            load.reload();
                          }}
                        >
                          Send now
                        </ActionButton>
                      )}{' '}
                      {(b.status === 'draft' || b.status === 'scheduled') && (
                        <ActionButton
                          label={`Cancel ${b.name}`}
                          action={async () => {
                            await post(`/v1/broadcasts/${b.id}/cancel`);
                            load.reload();
                          }}
                        >
                          Cancel
                        </ActionButton>
                      )}
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
