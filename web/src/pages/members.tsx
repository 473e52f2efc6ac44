/** Members and roles: invite, change a role, remove (the API enforces who may). */
import { useState } from 'preact/hooks';
import { del, get, post, put } from '../api';
import {
  ActionButton,
  Empty,
  Field,
  Form,
  PageHeader,
  Select,
  Show,
  Table,
  toApiError,
  useLoad,
  When,
  ErrorNote,
} from '../ui';
import type { ApiError } from '../api';
import { TwoFactorRequirement } from './members-security';

const ROLES = ['owner', 'admin', 'developer', 'analyst', 'billing'];

interface Member {
  id: string;
  user_id: string;
  email: string;
  role: string;
  created_at: string;
}

export function Members() {
  const load = useLoad(() => get<{ data: Member[] }>('/v1/dashboard/organization/members'), []);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('developer');
  const [error, setError] = useState<ApiError>();
  return (
    <>
      <PageHeader title="Members" />
      <Form
        label="Invite a member"
        class="form inline"
        submit="Invite"
        busy="Inviting…"
        onSubmit={async () => {
          await post('/v1/dashboard/organization/members', { email: email.trim(), role });
          setEmail('');
          load.reload();
        }}
      >
        <Field
          label="Email"
          type="email"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <Select label="Role" value={role} options={ROLES} onChange={(e) => setRole(e.currentTarget.value)} />
      </Form>
      <details class="roles">
        <summary>What each role may do</summary>
        <Table
          caption="Permissions by role"
          head={['Permission', 'owner', 'admin', 'developer', 'analyst', 'billing']}
        >
          {[
            ['See members', 'yes', 'yes', 'yes', 'yes', 'yes'],
            ['Invite, remove, change roles', 'yes', 'yes', '', '', ''],
            ['Manage API keys, domains, templates, webhooks', 'yes', 'yes', 'yes', '', ''],
            ['Send, approve sends', 'yes', 'yes', 'yes', '', ''],
            ['Read messages and analytics', 'yes', 'yes', 'yes', 'yes', ''],
            ['Read the audit log', 'yes', 'yes', '', '', ''],
            ['Require two-factor of owners and admins', 'yes', '', '', '', ''],
          ].map(([what, ...cells]) => (
            <tr key={what}>
              <th scope="row">{what}</th>
              {cells.map((c, i) => (
                <td key={ROLES[i]}>{c ? '✓' : <span class="sr-only">no</span>}</td>
              ))}
            </tr>
          ))}
        </Table>
      </details>
      <ErrorNote error={error} />
      <Show load={load}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No members." />
          ) : (
            <Table caption="Members" head={['Email', 'Role', 'Member since', '']}>
              {page.data.map((m) => (
                <tr key={m.id}>
                  <td class="clip">{m.email}</td>
                  <td>
                    <label class="sr-only" for={`role-${m.id}`}>
                      Role of {m.email}
                    </label>
                    <select
                      id={`role-${m.id}`}
                      value={m.role}
                      onChange={async (e) => {
                        setError(undefined);
                        try {
                          await put(`/v1/dashboard/organization/members/${m.id}`, {
                            role: e.currentTarget.value,
                          });
                        } catch (err) {
                          setError(toApiError(err));
                        }
                        load.reload();
                      }}
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td class="nowrap">
                    <When at={m.created_at} />
                  </td>
                  <td>
                    <ActionButton
                      label={`Remove ${m.email}`}
                      confirm={`Remove ${m.email}? Their sessions end at once.`}
                      action={async () => {
                        await del(`/v1/dashboard/organization/members/${m.id}`);
                        load.reload();
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
      <TwoFactorRequirement />
    </>
  );
}
