/** Inbound mail: the routes that receive it and the messages received. */
import { useState } from 'preact/hooks';
import { del, get, post, query } from '../api';
import { Link } from '../router';
import {
  ActionButton,
  CursorPager,
  Empty,
  Field,
  Form,
  PageHeader,
  Select,
  Show,
  Table,
  useCursor,
  useLoad,
  When,
} from '../ui';

interface Route {
  id: string;
  domain_id: string;
  address: string;
  created_at: string;
}
interface Received {
  id: string;
  from: string;
  to: string[];
  subject: string;
  attachment_count: number;
  created_at: string;
}

export function Inbound() {
  const routes = useLoad(() => get<{ data: Route[]; has_more: boolean }>('/v1/inbound/routes'), []);
  const domains = useLoad(
    () => get<{ data: { id: string; name: string; status: string }[] }>('/v1/domains?limit=100'),
    [],
  );
  const cursor = useCursor();
  const received = useLoad(
    () =>
      get<{ data: Received[]; has_more: boolean }>(
        `/v1/inbound/emails${query({ limit: 25, after: cursor.after })}`,
      ),
    [cursor.after],
  );
  const [domainId, setDomainId] = useState('');
  const [local, setLocal] = useState('');
  const verified = (domains.data?.data ?? []).filter((d) => d.status === 'verified');
  return (
    <>
      <PageHeader title="Inbound" />
      <section aria-labelledby="routes-title">
        <h2 id="routes-title">Routes</h2>
        {verified.length > 0 ? (
          <Form
            label="Add a route"
            class="form inline"
            submit="Add route"
            busy="Adding…"
            onSubmit={async () => {
              await post('/v1/inbound/routes', {
                domain_id: domainId || verified[0]?.id,
                ...(local.trim() ? { local_part: local.trim() } : {}),
              });
              setLocal('');
              routes.reload();
            }}
          >
            <Field
              label="Local part (empty for every address)"
              placeholder="support"
              value={local}
              onInput={(e) => setLocal(e.currentTarget.value)}
            />
            <Select
              label="Domain"
              value={domainId || verified[0]?.id}
              options={verified.map((d): [string, string] => [d.id, d.name])}
              onChange={(e) => setDomainId(e.currentTarget.value)}
            />
          </Form>
        ) : (
          <p class="note">Routes receive mail for a verified domain: verify one on the Domains page first.</p>
        )}
        <Show load={routes}>
          {(page) =>
            page.data.length === 0 ? (
              <Empty title="No routes yet." />
            ) : (
              <Table caption="Inbound routes" head={['Address', 'Created', '']}>
                {page.data.map((r) => (
                  <tr key={r.id}>
                    <td>
                      <code>{r.address}</code>
                    </td>
                    <td class="nowrap">
                      <When at={r.created_at} />
                    </td>
                    <td>
                      <ActionButton
                        label={`Remove the route ${r.address}`}
                        confirm={`Stop receiving mail for ${r.address}?`}
                        action={async () => {
                          await del(`/v1/inbound/routes/${r.id}`);
                          routes.reload();
                        }}
                      >
                        Remove
                      </ActionButton>
                    </td>
                  </tr>
                ))}
              </Table>
            )
          }
        </Show>
      </section>
      <section aria-labelledby="received-title">
        <h2 id="received-title">Received</h2>
        <Show load={received}>
          {(page) =>
            page.data.length === 0 ? (
              <Empty title="Nothing received yet." />
            ) : (
              <>
                <Table
                  caption="Received messages, newest first"
                  head={['From', 'Subject', 'To', 'Attachments', 'Received']}
                >
                  {page.data.map((m) => (
                    <tr key={m.id}>
                      <td class="clip">{m.from}</td>
                      <td class="clip">
                        <Link to={`/inbound/${m.id}`}>{m.subject || '(no subject)'}</Link>
                      </td>
                      <td class="clip">{m.to.join(', ')}</td>
                      <td>{m.attachment_count}</td>
                      <td class="nowrap">
                        <When at={m.created_at} />
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
      </section>
    </>
  );
}
