/** Webhook endpoints: the list and a new endpoint, whose signing secret is shown once. */
import { useState } from 'preact/hooks';
import { get, post, query } from '../api';
import { Link } from '../router';
import {
  CursorPager,
  Empty,
  Field,
  Form,
  PageHeader,
  Show,
  ShownOnce,
  Status,
  Table,
  useCursor,
  useLoad,
  When,
} from '../ui';

export const EVENT_TYPES = [
  'email.sent',
  'email.scheduled',
  'email.delivered',
  'email.delivery_delayed',
  'email.bounced',
  'email.complained',
  'email.opened',
  'email.clicked',
  'email.failed',
  'email.suppressed',
  'email.received',
  'domain.created',
  'domain.updated',
  'domain.deleted',
  'contact.created',
  'contact.updated',
  'contact.unsubscribed',
  'broadcast.sent',
];

export interface Endpoint {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  status: string;
  disabled_reason: string | null;
  created_at: string;
  secret?: string;
}

export function Webhooks() {
  const cursor = useCursor();
  const [creating, setCreating] = useState(false);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [all, setAll] = useState(true);
  const [events, setEvents] = useState<string[]>(['email.delivered', 'email.bounced']);
  const [secret, setSecret] = useState<string>();
  const load = useLoad(
    () =>
      get<{ data: Endpoint[]; has_more: boolean }>(
        `/v1/webhooks${query({ limit: 25, after: cursor.after })}`,
      ),
    [cursor.after],
  );
  return (
    <>
      <PageHeader title="Webhooks">
        <button type="button" class="primary" aria-expanded={creating} onClick={() => setCreating(!creating)}>
          Add endpoint
        </button>
      </PageHeader>
      {secret && <ShownOnce title="Signing secret" value={secret} onDone={() => setSecret(undefined)} />}
      {creating && (
        <Form
          label="Add an endpoint"
          submit="Add endpoint"
          busy="Adding…"
          onSubmit={async () => {
            const created = await post<Endpoint>('/v1/webhooks', {
              url: url.trim(),
              events: all ? ['*'] : events,
              ...(description ? { description } : {}),
            });
            setSecret(created.secret);
            setCreating(false);
            setUrl('');
            load.reload();
          }}
        >
          <Field
            label="URL"
            type="url"
            required
            placeholder="https://example.com/posthorn"
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
          <Field
            label="Description (optional)"
            maxLength={500}
            value={description}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
          <fieldset>
            <legend>Events</legend>
            <label class="check">
              <input type="checkbox" checked={all} onChange={(e) => setAll(e.currentTarget.checked)} /> Every
              event
            </label>
            {!all && (
              <div class="checks">
                {EVENT_TYPES.map((type) => (
                  <label class="check" key={type}>
                    <input
                      type="checkbox"
                      checked={events.includes(type)}
                      onChange={(e) =>
                        setEvents(
                          e.currentTarget.checked ? [...events, type] : events.filter((t) => t !== type),
                        )
                      }
                    />{' '}
                    {type}
                  </label>
                ))}
              </div>
            )}
          </fieldset>
        </Form>
      )}
      <Show load={load}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No endpoints yet.">
              Posthorn POSTs signed events (Standard Webhooks) to each endpoint you add.
            </Empty>
          ) : (
            <>
              <Table caption="Webhook endpoints" head={['URL', 'Events', 'State', 'Created']}>
                {page.data.map((w) => (
                  <tr key={w.id}>
                    <td class="clip">
                      <Link to={`/webhooks/${w.id}`}>{w.url}</Link>
                      {w.description && <p class="hint">{w.description}</p>}
                    </td>
                    <td class="clip">{w.events.join(', ')}</td>
                    <td>
                      <Status value={w.status} />
                      {w.disabled_reason && <span class="muted"> ({w.disabled_reason})</span>}
                    </td>
                    <td class="nowrap">
                      <When at={w.created_at} />
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
