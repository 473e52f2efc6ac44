/** The Account page's sessions: where the person is signed in; end one, or all but this one. */
import { useState } from 'preact/hooks';
import { del, get, post } from '../api';
import { ActionButton, Show, Table, useLoad, When } from '../ui';

interface SessionItem {
  id: string;
  current: boolean;
  auth_method: 'email_code' | 'password';
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  ip_network: string | null;
  client: string | null;
}

export function Sessions() {
  const load = useLoad(() => get<{ data: SessionItem[] }>('/v1/dashboard/account/sessions'), []);
  const [ended, setEnded] = useState<number>();
  return (
    <section class="form" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <p>Where you are signed in. End any session you do not recognise, then change your password.</p>
      <Show load={load}>
        {(page) => (
          <>
            <Table caption="Your sessions" head={['Client', 'Network', 'Signed in', 'Last active', '']}>
              {page.data.map((s) => (
                <tr key={s.id}>
                  <td class="clip">
                    {s.client ?? 'Unknown client'}
                    <p class="hint">{s.auth_method === 'password' ? 'password' : 'email code'}</p>
                  </td>
                  <td class="nowrap">{s.ip_network ?? '—'}</td>
                  <td class="nowrap">
                    <When at={s.created_at} />
                  </td>
                  <td class="nowrap">
                    <When at={s.last_seen_at} />
                  </td>
                  <td>
                    {s.current ? (
                      <span class="badge">This session</span>
                    ) : (
                      <ActionButton
                        label={`End the session of ${s.client ?? 'an unknown client'} signed in ${s.created_at}`}
                        confirm="End this session? It is signed out at once."
                        action={async () => {
                          await del(`/v1/dashboard/account/sessions/${s.id}`);
                          load.reload();
                        }}
                      >
                        End
                      </ActionButton>
                    )}
                  </td>
                </tr>
              ))}
            </Table>
            {page.data.some((s) => !s.current) && (
              <ActionButton
                confirm="Sign out every other session?"
                action={async () => {
                  const r = await post<{ ended: number }>('/v1/dashboard/account/sessions/end-others');
                  setEnded(r.ended);
                  load.reload();
                }}
              >
                End all other sessions
              </ActionButton>
            )}
          </>
        )}
      </Show>
      {ended !== undefined && (
        <p class="ok" role="status">
          {ended === 1 ? '1 other session was ended.' : `${ended} other sessions were ended.`}
        </p>
      )}
    </section>
  );
}
