/**
 * Sign in by a mailed code or by password; when the account has two-factor authentication, the
 * API's 401 leads to the authenticator step (the API does not say which factor failed, by design).
 * When a session ended while in use (its time was up, or it was ended elsewhere), the page says so.
 */
import { useEffect, useState } from 'preact/hooks';
import { post } from '../api';
import type { Session } from '../session';
import { Field, Form } from '../ui';

type Method = 'code' | 'password';

export function SignIn({
  onSignedIn,
  ended,
}: {
  onSignedIn: (session: Session) => void;
  /** The API's reason, when the person's session ended while they used the dashboard. */
  ended?: string | undefined;
}) {
  const [method, setMethod] = useState<Method>('code');
  const [email, setEmail] = useState('');
  const [codeSent, setCodeSent] = useState(false);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [second, setSecond] = useState(false);
  const [totp, setTotp] = useState('');
  const [useRecovery, setUseRecovery] = useState(false);
  useEffect(() => {
    document.title = 'Sign in · Posthorn';
  }, []);

  const secondFactor = () =>
    !second || totp.trim() === ''
      ? {}
      : useRecovery
        ? { recovery_code: totp.trim() }
        : { totp_code: totp.trim() };

  const signIn = async (path: string, body: Record<string, string>) => {
    try {
      const { session } = await post<{ session: Session }>(path, { ...body, ...secondFactor() });
      onSignedIn(session);
    } catch (error) {
      if ((error as { status?: number }).status === 401) setSecond(true);
      throw error;
    }
  };

  const switchTo = (next: Method) => {
    setMethod(next);
    setSecond(false);
    setTotp('');
  };

  return (
    <main class="signin" id="main">
      <div class="signin-card">
        <p class="brand">Posthorn</p>
        <h1>Sign in</h1>
        {ended && (
          <p class="note" role="status">
            Your session has ended: {ended} You will return to the page you were on.
          </p>
        )}
        <fieldset class="tabs">
          <legend class="sr-only">Sign-in method</legend>
          <button type="button" aria-pressed={method === 'code'} onClick={() => switchTo('code')}>
            Email code
          </button>
          <button type="button" aria-pressed={method === 'password'} onClick={() => switchTo('password')}>
            Password
          </button>
        </fieldset>
        {method === 'code' && !codeSent && (
          <Form
            label="Request a sign-in code"
            submit="Email me a code"
            busy="Sending…"
            onSubmit={async () => {
              await post('/v1/auth/request-code', { email: email.trim(), locale: 'en' });
              setCodeSent(true);
            }}
          >
            <Field
              label="Email"
              type="email"
              autocomplete="username"
              required
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          </Form>
        )}
        {method === 'code' && codeSent && (
          <Form
            label="Enter the sign-in code"
            submit="Sign in"
            busy="Signing in…"
            onSubmit={() =>
              signIn('/v1/dashboard/web/sign-in/code', { email: email.trim(), code: code.trim() })
            }
          >
            <p class="note" role="status">
              If {email} has an account, a six-digit code is on its way. It works for 10 minutes.
            </p>
            <Field
              label="Sign-in code"
              inputMode="numeric"
              autocomplete="one-time-code"
              pattern="\d{6}"
              maxLength={6}
              required
              value={code}
              onInput={(e) => setCode(e.currentTarget.value)}
            />
            {second && (
              <SecondFactor
                value={totp}
                onInput={setTotp}
                recovery={useRecovery}
                onRecovery={setUseRecovery}
              />
            )}
            <button type="button" class="link" onClick={() => setCodeSent(false)}>
              Use another address or send a new code
            </button>
          </Form>
        )}
        {method === 'password' && (
          <Form
            label="Sign in with a password"
            submit="Sign in"
            busy="Signing in…"
            onSubmit={() => signIn('/v1/dashboard/web/sign-in/password', { email: email.trim(), password })}
          >
            <Field
              label="Email"
              type="email"
              autocomplete="username"
              required
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
            <Field
              label="Password"
              type="password"
              autocomplete="current-password"
              required
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
            {second && (
              <SecondFactor
                value={totp}
                onInput={setTotp}
                recovery={useRecovery}
                onRecovery={setUseRecovery}
              />
            )}
          </Form>
        )}
      </div>
    </main>
  );
}

function SecondFactor(props: {
  value: string;
  onInput: (value: string) => void;
  recovery: boolean;
  onRecovery: (on: boolean) => void;
}) {
  return (
    <fieldset class="second-factor">
      <legend>Two-factor authentication</legend>
      <p class="hint">
        If your account has two-factor authentication on, enter the code your authenticator app shows.
      </p>
      <Field
        label={props.recovery ? 'Recovery code' : 'Authenticator code'}
        inputMode={props.recovery ? 'text' : 'numeric'}
        autocomplete="one-time-code"
        value={props.value}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
      <button type="button" class="link" onClick={() => props.onRecovery(!props.recovery)}>
        {props.recovery ? 'Use the authenticator app instead' : 'Use a recovery code instead'}
      </button>
    </fieldset>
  );
}
