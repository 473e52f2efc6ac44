/** Check one address: syntax, MX, disposable domain, role account, suppression (POST /v1/validation). */
import { useState } from 'preact/hooks';
import { post } from '../api';
import { Field, Form, PageHeader, Status, Table } from '../ui';

interface Result {
  email: string;
  normalized: string | null;
  verdict: string;
  reason: string;
  suggestion: string | null;
  checks: Record<string, { result: string; reason: string }>;
}

export function Validation() {
  const [email, setEmail] = useState('');
  const [result, setResult] = useState<Result>();
  return (
    <>
      <PageHeader title="Address validation" />
      <Form
        label="Validate an address"
        class="form inline"
        submit="Validate"
        busy="Checking…"
        onSubmit={async () => setResult(await post<Result>('/v1/validation', { email: email.trim() }))}
      >
        <Field
          label="Email address"
          required
          maxLength={254}
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
      </Form>
      {result && (
        <section class="card" aria-labelledby="verdict-title" role="status">
          <h2 id="verdict-title">
            {result.email}: <Status value={result.verdict} />
          </h2>
          <p>{result.reason}</p>
          {result.suggestion && (
            <p>
              Did you mean <strong>{result.suggestion}</strong>?
            </p>
          )}
          <Table caption="Checks" head={['Check', 'Result', 'What it found']}>
            {Object.entries(result.checks).map(([name, check]) => (
              <tr key={name}>
                <td>{name.replace(/_/g, ' ')}</td>
                <td>
                  <Status value={check.result} />
                </td>
                <td class="wrap">{check.reason}</td>
              </tr>
            ))}
          </Table>
        </section>
      )}
    </>
  );
}
