/** The Members page's security setting: two-factor required of owners and admins (owners change it). */
import { useEffect, useState } from 'preact/hooks';
import { get, put } from '../api';
import { Form, Show, useLoad } from '../ui';

interface Security {
  require_two_factor_for_admins: boolean;
  required_since: string | null;
  admins_without_two_factor?: { id: string; email: string; role: string }[];
}

export function TwoFactorRequirement() {
  const load = useLoad(() => get<Security>('/v1/dashboard/organization/security'), []);
  const [required, setRequired] = useState(false);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (load.data) setRequired(load.data.require_two_factor_for_admins);
  }, [load.data]);
  return (
    <Show load={load}>
      {(s) =>
        s.admins_without_two_factor === undefined ? (
          <p class="muted">
            {s.require_two_factor_for_admins
              ? 'Owners and admins of this organization need two-factor authentication for administrative actions.'
              : 'This organization does not require two-factor authentication.'}
          </p>
        ) : (
          <Form
            label="Two-factor requirement"
            submit="Save"
            busy="Saving…"
            onSubmit={async () => {
              setSaved(false);
              await put('/v1/dashboard/organization/security', { require_two_factor_for_admins: required });
              setSaved(true);
              load.reload();
            }}
          >
            <h2>Security</h2>
            <label class="check">
              <input
                type="checkbox"
                checked={required}
                onChange={(e) => setRequired(e.currentTarget.checked)}
              />{' '}
              Require two-factor authentication of owners and admins
            </label>
            <p class="hint">
              Without an authenticator they can still sign in and work as a developer, but not manage members,
              read the audit log or change these settings. Turn on your own first, on the Account page.
            </p>
            {s.admins_without_two_factor.length > 0 && (
              <p>
                Without two-factor:{' '}
                {s.admins_without_two_factor.map((m) => `${m.email} (${m.role})`).join(', ')}
              </p>
            )}
            {saved && (
              <p class="ok" role="status">
                Saved.
              </p>
            )}
          </Form>
        )
      }
    </Show>
  );
}
