/** The signed-in person: password, two-factor enrolment with a QR code, recovery codes. */
import { useState } from 'preact/hooks';
import { encode } from 'uqr';
import { del, get, post, put } from '../api';
import type { Session } from '../session';
import { CopyButton, Field, Form, PageHeader, Show, useLoad, When } from '../ui';
import { Sessions } from './account-sessions';

export function Account() {
  const session = useLoad(() => get<Session & { created_at: string }>('/v1/auth/session'), []);
  return (
    <>
      <PageHeader title="Account" />
      <Show load={session}>
        {(s) => (
          <dl class="facts">
            <dt>Email</dt>
            <dd>{s.email}</dd>
            <dt>Signed in with</dt>
            <dd>{s.auth_method === 'password' ? 'password' : 'email code'}</dd>
            <dt>Session ends</dt>
            <dd>
              <When at={s.expires_at} />
            </dd>
          </dl>
        )}
      </Show>
      <div class="two-col">
        <Password />
        <TwoFactor email={session.data?.email} />
      </div>
      <Sessions />
    </>
  );
}

function Password() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState<number>();
  return (
    <Form
      label="Password"
      submit="Save password"
      busy="Saving…"
      onSubmit={async () => {
        setDone(undefined);
        // The change ends every other session: counted first, to say how many.
        const live = await get<{ data: { current: boolean }[] }>('/v1/dashboard/account/sessions');
        await put('/v1/dashboard/account/password', {
          password: next,
          ...(current ? { current_password: current } : {}),
        });
        setCurrent('');
        setNext('');
        setDone(live.data.filter((s) => !s.current).length);
      }}
    >
      <h2>Password</h2>
      <Field
        label="Current password"
        type="password"
        autocomplete="current-password"
        hint="Leave empty if you have not set one yet."
        value={current}
        onInput={(e) => setCurrent(e.currentTarget.value)}
      />
      <Field
        label="New password"
        type="password"
        autocomplete="new-password"
        minLength={12}
        maxLength={128}
        required
        hint="12 to 128 characters; common and easily guessed passwords are refused. Your other sessions are signed out."
        value={next}
        onInput={(e) => setNext(e.currentTarget.value)}
      />
      {done !== undefined && (
        <p class="ok" role="status">
          Password saved.
          {done > 0 &&
            (done === 1 ? ' 1 other session was signed out.' : ` ${done} other sessions were signed out.`)}
        </p>
      )}
    </Form>
  );
}

function QrCode({ text }: { text: string }) {
  const qr = encode(text, { ecc: 'M', border: 2 });
  const cells: string[] = [];
  for (const [y, row] of qr.data.entries())
    for (const [x, on] of row.entries()) if (on) cells.push(`M${x} ${y}h1v1h-1z`);
  return (
    <svg
      class="qr"
      viewBox={`0 0 ${qr.size} ${qr.size}`}
      role="img"
      aria-label="QR code of the authenticator secret"
    >
      <rect width={qr.size} height={qr.size} fill="#fff" />
      <path d={cells.join('')} fill="#000" />
    </svg>
  );
}

function TwoFactor({ email }: { email: string | undefined }) {
  const [pending, setPending] = useState<{ secret: string; otpauth_uri: string }>();
  const [proof, setProof] = useState('');
  const [emailCode, setEmailCode] = useState('');
  const [codeSent, setCodeSent] = useState(false);
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState<string[]>();
  const [offCode, setOffCode] = useState('');
  const [off, setOff] = useState(false);
  return (
    <section class="form" aria-labelledby="totp-title">
      <h2 id="totp-title">Two-factor authentication</h2>
      {recovery ? (
        <div class="shown-once" role="status">
          <p>
            <strong>Two-factor authentication is on.</strong> Keep these recovery codes somewhere safe: each
            signs you in once if you lose your authenticator. They are shown only now.
          </p>
          <ul class="codes">
            {recovery.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
          <CopyButton text={recovery.join('\n')} label="Copy the recovery codes" />{' '}
          <button type="button" onClick={() => setRecovery(undefined)}>
            I have saved them
          </button>
        </div>
      ) : pending ? (
        <Form
          label="Confirm the authenticator"
          submit="Turn on"
          busy="Checking…"
          onSubmit={async () => {
            const r = await post<{ recovery_codes: string[] }>('/v1/dashboard/account/totp/confirm', {
              code: code.trim(),
            });
            setPending(undefined);
            setCode('');
            setRecovery(r.recovery_codes);
          }}
        >
          <p>Scan this code with your authenticator app, or type the secret, then enter the code it shows.</p>
          <QrCode text={pending.otpauth_uri} />
          <div class="copy-row">
            <code class="secret" data-testid="totp-secret">
              {pending.secret}
            </code>
            <CopyButton text={pending.secret} label="Copy the secret" />
          </div>
          <Field
            label="Code from the app"
            inputMode="numeric"
            autocomplete="one-time-code"
            pattern="\d{6}"
            maxLength={6}
            required
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
        </Form>
      ) : (
        <>
          <p>An authenticator app adds a second step to every sign-in.</p>
          <Form
            label="Set up an authenticator"
            submit="Set up authenticator"
            busy="Starting…"
            onSubmit={async () => {
              setPending(
                await post('/v1/dashboard/account/totp', {
                  ...(proof ? { current_password: proof } : {}),
                  ...(emailCode.trim() ? { email_code: emailCode.trim() } : {}),
                }),
              );
              setProof('');
              setEmailCode('');
            }}
          >
            <Field
              label="Confirm with your password"
              type="password"
              autocomplete="current-password"
              hint="No password yet? Use a sign-in code instead."
              value={proof}
              onInput={(e) => setProof(e.currentTarget.value)}
            />
            <details>
              <summary>Use a sign-in code instead</summary>
              <button
                type="button"
                disabled={!email}
                onClick={async () => {
                  await post('/v1/auth/request-code', { email, locale: 'en' });
                  setCodeSent(true);
                }}
              >
                Email me a code
              </button>
              {codeSent && (
                <p class="hint" role="status">
                  A code is on its way to {email}.
                </p>
              )}
              <Field
                label="Sign-in code from the email"
                inputMode="numeric"
                autocomplete="one-time-code"
                pattern="\d{6}"
                maxLength={6}
                value={emailCode}
                onInput={(e) => setEmailCode(e.currentTarget.value)}
              />
            </details>
          </Form>
          <NewRecoveryCodes onMade={setRecovery} />
          <details open={off} onToggle={(e) => setOff(e.currentTarget.open)}>
            <summary>Turn two-factor authentication off</summary>
            <Form
              label="Turn two-factor authentication off"
              submit="Turn off"
              busy="Turning off…"
              onSubmit={async () => {
                await del('/v1/dashboard/account/totp', { code: offCode.trim() });
                setOffCode('');
                setOff(false);
              }}
            >
              <Field
                label="Current code or a recovery code"
                autocomplete="one-time-code"
                required
                value={offCode}
                onInput={(e) => setOffCode(e.currentTarget.value)}
              />
            </Form>
          </details>
        </>
      )}
    </section>
  );
}

function NewRecoveryCodes({ onMade }: { onMade: (codes: string[]) => void }) {
  const [code, setCode] = useState('');
  return (
    <details>
      <summary>Make new recovery codes</summary>
      <Form
        label="Make new recovery codes"
        submit="Make new codes"
        busy="Making…"
        onSubmit={async () => {
          const r = await post<{ recovery_codes: string[] }>('/v1/dashboard/account/totp/recovery-codes', {
            code: code.trim(),
          });
          setCode('');
          onMade(r.recovery_codes);
        }}
      >
        <p class="hint">The codes you have now stop working.</p>
        <Field
          label="Current code from the app"
          inputMode="numeric"
          autocomplete="one-time-code"
          pattern="\d{6}"
          maxLength={6}
          required
          value={code}
          onInput={(e) => setCode(e.currentTarget.value)}
        />
      </Form>
    </details>
  );
}
