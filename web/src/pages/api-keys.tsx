/** API keys of the selected project: create (shown once), revoke. */
import { useState } from 'preact/hooks';
import { del, get, post } from '../api';
import {
  ActionButton,
  Empty,
  Field,
  Form,
  PageHeader,
  Select,
  Show,
  ShownOnce,
  Status,
  Table,
  useLoad,
  When,
} from '../ui';

interface Key {
  id: string;
  name: string;
  mode: string;
  hint: string;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  key?: string;
}

const SCOPES = [
  'emails:send',
  'emails:read',
  'analytics:read',
  'validation:use',
  ...[
    'templates',
    'domains',
    'suppressions',
    'webhooks',
    'tracking',
    'inbound',
    'audiences',
    'broadcasts',
    'reputation',
  ].flatMap((r) => [`${r}:read`, `${r}:write`]),
];

export function ApiKeys() {
  const load = useLoad(() => get<{ data: Key[] }>('/v1/dashboard/api-keys'), []);
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState('');
  const [mode, setMode] = useState('live');
  const [full, setFull] = useState(true);
  const [scopes, setScopes] = useState<string[]>(['emails:send']);
  const [shown, setShown] = useState<string>();
  return (
    <>
      <PageHeader title="API keys">
        <button type="button" class="primary" aria-expanded={creating} onClick={() => setCreating(!creating)}>
          Create key
        </button>
      </PageHeader>
      {shown && <ShownOnce title="API key" value={shown} onDone={() => setShown(undefined)} />}
      {creating && (
        <Form
          label="Create an API key"
          submit="Create key"
          busy="Creating…"
          onSubmit={async () => {
            const created = await post<Key>('/v1/dashboard/api-keys', {
              name: name.trim(),
              mode,
              scopes: full ? ['full_access'] : scopes,
            });
            setShown(created.key);
            setCreating(false);
            setName('');
            load.reload();
          }}
        >
          <Field
            label="Name"
            required
            maxLength={80}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <Select
            label="Mode"
            value={mode}
            options={[
              ['live', 'Live: delivers mail'],
              ['test', 'Test: runs the pipeline, never leaves the box'],
            ]}
            onChange={(e) => setMode(e.currentTarget.value)}
          />
          <fieldset>
            <legend>Scopes</legend>
            <label class="check">
              <input type="checkbox" checked={full} onChange={(e) => setFull(e.currentTarget.checked)} /> Full
              access
            </label>
            {!full && (
              <div class="checks">
                {SCOPES.map((s) => (
                  <label class="check" key={s}>
                    <input
                      type="checkbox"
                      checked={scopes.includes(s)}
                      onChange={(e) =>
                        setScopes(e.currentTarget.checked ? [...scopes, s] : scopes.filter((x) => x !== s))
                      }
                    />{' '}
                    {s}
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
            <Empty title="No API keys yet.">
              Applications send with a key; create one and keep it in your secrets store.
            </Empty>
          ) : (
            <Table caption="API keys" head={['Name', 'Key', 'Scopes', 'Last used', 'Created', '']}>
              {page.data.map((k) => (
                <tr key={k.id}>
                  <td class="clip">
                    {k.name} <Status value={k.mode} />
                  </td>
                  <td>
                    <code>…{k.hint}</code>
                  </td>
                  <td class="clip">{k.scopes.join(', ')}</td>
                  <td class="nowrap">
                    <When at={k.last_used_at} />
                  </td>
                  <td class="nowrap">
                    <When at={k.created_at} />
                  </td>
                  <td>
                    {k.revoked_at ? (
                      <Status value="revoked" />
                    ) : (
                      <ActionButton
                        label={`Revoke ${k.name}`}
                        confirm={`Revoke ${k.name}? Applications using it stop working at once.`}
                        action={async () => {
                          await del(`/v1/dashboard/api-keys/${k.id}`);
                          load.reload();
                        }}
                      >
                        Revoke
                      </ActionButton>
                    )}
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
