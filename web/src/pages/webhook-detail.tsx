/** One endpoint: enable/disable, rotate the secret, delete; its delivery log with request, response and replay. */
import { useState } from 'preact/hooks';
import { del, get, patch, post, query } from '../api';
import { Link, navigate } from '../router';
import {
  ActionButton,
  CursorPager,
  Empty,
  Loading,
  Pre,
  PageHeader,
  Show,
  ShownOnce,
  Status,
  Table,
  useCursor,
  useLoad,
  When,
} from '../ui';
import type { Endpoint } from './webhooks';

interface Attempt {
  id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  trigger: string;
  replay_of: string | null;
  status: string;
  scheduled_at: string;
  url: string | null;
  requested_at: string | null;
  duration_ms: number | null;
  response_status: number | null;
  response_headers: Record<string, string>;
  response_body: string | null;
  error: string | null;
  payload?: string;
}

export function WebhookDetail({ params }: { params: Record<string, string> }) {
  const id = params.id as string;
  const endpoint = useLoad(() => get<Endpoint>(`/v1/webhooks/${id}`), [id]);
  const cursor = useCursor();
  const attempts = useLoad(
    () =>
      get<{ data: Attempt[]; has_more: boolean }>(
        `/v1/webhooks/${id}/deliveries${query({ limit: 25, after: cursor.after })}`,
      ),
    [id, cursor.after],
  );
  const [open, setOpen] = useState<string>();
  const [secret, setSecret] = useState<string>();
  return (
    <>
      <p class="crumbs">
        <Link to="/webhooks">Webhooks</Link> / <span>{id}</span>
      </p>
      <Show load={endpoint}>
        {(w) => (
          <>
            <PageHeader title={w.url}>
              <ActionButton
                action={async () => {
                  await patch(`/v1/webhooks/${id}`, {
                    status: w.status === 'enabled' ? 'disabled' : 'enabled',
                  });
                  endpoint.reload();
                }}
              >
                {w.status === 'enabled' ? 'Disable' : 'Enable'}
              </ActionButton>
              <ActionButton
                confirm="Rotate the signing secret? Receivers must switch to the new one."
                action={async () =>
                  setSecret((await post<{ secret: string }>(`/v1/webhooks/${id}/rotate-secret`)).secret)
                }
              >
                Rotate secret
              </ActionButton>
              <ActionButton
                class="danger"
                confirm="Delete this endpoint? Pending deliveries are dropped."
                action={async () => {
                  await del(`/v1/webhooks/${id}`);
                  navigate('/webhooks');
                }}
              >
                Delete
              </ActionButton>
            </PageHeader>
            {secret && (
              <ShownOnce title="New signing secret" value={secret} onDone={() => setSecret(undefined)} />
            )}
            <p>
              <Status value={w.status} /> · Events: {w.events.join(', ')}
            </p>
          </>
        )}
      </Show>
      <section aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Deliveries</h2>
        <button type="button" onClick={attempts.reload}>
          Refresh
        </button>
        <Show load={attempts}>
          {(page) =>
            page.data.length === 0 ? (
              <Empty title="No deliveries yet.">
                Each event sent to this endpoint, and each retry and replay, appears here.
              </Empty>
            ) : (
              <>
                <Table
                  caption="Delivery attempts, newest first"
                  head={['Event', 'Attempt', 'State', 'Response', 'Time', '']}
                >
                  {page.data.map((a) => (
                    <>
                      <tr key={a.id}>
                        <td>
                          <code>{a.event_type}</code>
                        </td>
                        <td>
                          #{a.attempt} {a.trigger !== 'event' && <span class="muted">({a.trigger})</span>}
                        </td>
                        <td>
                          <Status value={a.status} />
                        </td>
                        <td>
                          {a.response_status ?? <span class="muted">{a.error ?? '—'}</span>}
                          {a.duration_ms !== null && <span class="muted"> · {a.duration_ms} ms</span>}
                        </td>
                        <td class="nowrap">
                          <When at={a.requested_at ?? a.scheduled_at} />
                        </td>
                        <td class="nowrap">
                          <button
                            type="button"
                            aria-expanded={open === a.id}
                            aria-label={`Details of attempt ${a.id}`}
                            onClick={() => setOpen(open === a.id ? undefined : a.id)}
                          >
                            Details
                          </button>{' '}
                          <ActionButton
                            label={`Replay ${a.event_type} attempt ${a.id}`}
                            action={async () => {
                              await post(`/v1/webhooks/${id}/deliveries/${a.id}/replay`);
                              cursor.reset();
                              attempts.reload();
                            }}
                          >
                            Replay
                          </ActionButton>
                        </td>
                      </tr>
                      {open === a.id && (
                        <tr key={`${a.id}-detail`}>
                          <td colSpan={6}>
                            <AttemptDetail endpointId={id} attemptId={a.id} />
                          </td>
                        </tr>
                      )}
                    </>
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
      </section>
    </>
  );
}

function AttemptDetail({ endpointId, attemptId }: { endpointId: string; attemptId: string }) {
  const load = useLoad(() => get<Attempt>(`/v1/webhooks/${endpointId}/deliveries/${attemptId}`), [attemptId]);
  if (load.data === undefined && !load.error) return <Loading />;
  return (
    <Show load={load}>
      {(a) => (
        <div class="attempt">
          <h3>Request</h3>
          <p>
            POST <code>{a.url ?? '—'}</code>
            {a.replay_of && <span class="muted"> · replays {a.replay_of}</span>}
          </p>
          <Pre>{pretty(a.payload ?? '')}</Pre>
          <h3>Response</h3>
          {a.response_status === null ? (
            <p>{a.error ?? 'No response yet.'}</p>
          ) : (
            <>
              <p>
                HTTP {a.response_status}
                {a.duration_ms !== null && ` in ${a.duration_ms} ms`}
              </p>
              <Pre>
                {Object.entries(a.response_headers)
                  .map(([k, v]) => `${k}: ${v}`)
                  .join('\n')}
                {a.response_body ? `\n\n${a.response_body}` : ''}
              </Pre>
            </>
          )}
        </div>
      )}
    </Show>
  );
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
