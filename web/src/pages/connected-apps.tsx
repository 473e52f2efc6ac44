/** Applications connected with OAuth to the selected project; disconnecting revokes every token at once. */
import { del, get } from '../api';
import { ActionButton, Empty, PageHeader, Show, Table, useLoad, When } from '../ui';

interface Grant {
  id: string;
  client: { client_id: string; client_name: string | null };
  user_id: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
}

export function ConnectedApps() {
  const load = useLoad(() => get<{ data: Grant[] }>('/v1/dashboard/oauth/grants'), []);
  return (
    <>
      <PageHeader title="Connected apps" />
      <Show load={load}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No connected applications.">
              Applications and agents you allow through OAuth appear here.
            </Empty>
          ) : (
            <Table
              caption="Connected applications"
              head={['Application', 'Scopes', 'Connected', 'Last used', '']}
            >
              {page.data.map((g) => (
                <tr key={g.id}>
                  <td class="clip">
                    {g.client.client_name ?? g.client.client_id}
                    <p class="hint">
                      <code>{g.client.client_id}</code>
                    </p>
                  </td>
                  <td class="clip">{g.scopes.join(', ')}</td>
                  <td class="nowrap">
                    <When at={g.created_at} />
                  </td>
                  <td class="nowrap">
                    <When at={g.last_used_at} />
                  </td>
                  <td>
                    <ActionButton
                      label={`Disconnect ${g.client.client_name ?? g.client.client_id}`}
                      confirm="Disconnect? Its tokens stop working at once."
                      action={async () => {
                        await del(`/v1/dashboard/oauth/grants/${g.id}`);
                        load.reload();
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
    </>
  );
}
