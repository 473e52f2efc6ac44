/**
 * The project's approval policy, on the agent-sends page: whether sends by OAuth clients wait for a
 * person, and which connected applications are trusted to send without waiting.
 */
import { useState } from 'preact/hooks';
import { get, put } from '../api';
import { Form, Show, useLoad } from '../ui';

interface Policy {
  require_approval: boolean;
  trusted_clients: string[];
}

interface Grant {
  client: { client_id: string; client_name: string | null };
}

export function ApprovalPolicy() {
  const policy = useLoad(() => get<Policy>('/v1/dashboard/send-approvals/policy'), []);
  const grants = useLoad(() => get<{ data: Grant[] }>('/v1/dashboard/oauth/grants'), []);
  return (
    <section aria-labelledby="policy-title">
      <h2 id="policy-title">Approval policy</h2>
      <Show load={policy}>
        {(p) => (
          <Show load={grants}>
            {(g) => <PolicyForm policy={p} grants={g.data} onSaved={policy.reload} />}
          </Show>
        )}
      </Show>
    </section>
  );
}

function PolicyForm({ policy, grants, onSaved }: { policy: Policy; grants: Grant[]; onSaved: () => void }) {
  const [required, setRequired] = useState(policy.require_approval);
  const [trusted, setTrusted] = useState(new Set(policy.trusted_clients));
  const [saved, setSaved] = useState(false);
  // Every connected client once, and any trusted client no longer connected (so it can be untrusted).
  const clients = new Map<string, string>();
  for (const g of grants) clients.set(g.client.client_id, g.client.client_name ?? g.client.client_id);
  for (const id of policy.trusted_clients) if (!clients.has(id)) clients.set(id, id);
  return (
    <Form
      label="Approval policy"
      submit="Save policy"
      busy="Saving…"
      onSubmit={async () => {
        setSaved(false);
        await put('/v1/dashboard/send-approvals/policy', {
          require_approval: required,
          trusted_clients: [...trusted],
        });
        setSaved(true);
        onSaved();
      }}
    >
      <label class="check">
        <input type="checkbox" checked={required} onChange={(e) => setRequired(e.currentTarget.checked)} />{' '}
        Sends by connected applications wait for a member's approval
      </label>
      <fieldset disabled={!required}>
        <legend>Trusted applications (their sends go out without approval)</legend>
        {clients.size === 0 ? (
          <p class="muted">No connected applications.</p>
        ) : (
          [...clients].map(([id, name]) => (
            <label class="check" key={id}>
              <input
                type="checkbox"
                checked={trusted.has(id)}
                onChange={(e) => {
                  const next = new Set(trusted);
                  if (e.currentTarget.checked) next.add(id);
                  else next.delete(id);
                  setTrusted(next);
                }}
              />{' '}
              Trust {name}
            </label>
          ))
        )}
      </fieldset>
      {saved && (
        <p class="ok" role="status">
          Policy saved.
        </p>
      )}
    </Form>
  );
}
