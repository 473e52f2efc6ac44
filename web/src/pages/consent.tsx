/**
 * The OAuth consent screen (the authorization endpoint the server advertises): who asks, for which
 * project, with which scopes; approve or decline, then the browser goes back to the application.
 */
import { useEffect, useState } from 'preact/hooks';
import { type ApiError, get, post } from '../api';
import { ErrorNote, Loading, toApiError } from '../ui';

interface Context {
  client: { client_id: string; client_name: string | null; software_id: string | null };
  redirect_uri: string;
  scopes: string[];
  project: { id: string; name: string; status: string };
  user: { id: string; email: string };
}

const PARAMS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'code_challenge',
  'code_challenge_method',
  'scope',
  'state',
];

export function Consent() {
  const search = new URLSearchParams(location.search);
  const request: Record<string, string> = {};
  for (const name of PARAMS) {
    const value = search.get(name);
    if (value !== null) request[name] = value;
  }
  const [context, setContext] = useState<Context>();
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Authorize an application · Posthorn';
    get<Context>(`/v1/dashboard/oauth/authorize-context?${new URLSearchParams(request)}`).then(
      setContext,
      (e) => setError(toApiError(e)),
    );
  }, []);

  const decide = async (path: string) => {
    setBusy(true);
    setError(undefined);
    try {
      const { redirect_to } = await post<{ redirect_to: string }>(path, request);
      location.assign(redirect_to);
    } catch (e) {
      setError(toApiError(e));
      setBusy(false);
    }
  };

  return (
    <main class="signin" id="main">
      <div class="signin-card">
        <p class="brand">Posthorn</p>
        <h1>Authorize an application</h1>
        <ErrorNote error={error} />
        {!context && !error && <Loading />}
        {context && (
          <>
            <p>
              <strong>{context.client.client_name ?? context.client.client_id}</strong> asks to act for you (
              {context.user.email}) on the project <strong>{context.project.name}</strong>.
            </p>
            <h2>It will be able to</h2>
            <ul class="scopes">
              {context.scopes.map((scope) => (
                <li key={scope}>
                  <code>{scope}</code>
                </li>
              ))}
            </ul>
            <p class="hint">
              You will be sent back to <code>{context.redirect_uri}</code>. Messages it sends wait for a
              member’s approval unless the project trusts it; disconnect it any time under Connected apps.
            </p>
            <div class="decide">
              <button
                type="button"
                class="primary"
                disabled={busy}
                onClick={() => decide('/v1/dashboard/oauth/authorize')}
              >
                Allow
              </button>{' '}
              <button type="button" disabled={busy} onClick={() => decide('/v1/dashboard/oauth/deny')}>
                Deny
              </button>
            </div>
          </>
        )}
      </div>
    </main>
  );
}
