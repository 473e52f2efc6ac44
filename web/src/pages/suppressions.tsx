/** The suppression list: look an address up, add one, remove one; the list paged by reason. */
import { useState } from 'preact/hooks';
import { del, get, post, query } from '../api';
import {
  ActionButton,
  CursorPager,
  Empty,
  ErrorNote,
  Field,
  Form,
  PageHeader,
  Select,
  Show,
  Status,
  Table,
  toApiError,
  useCursor,
  useLoad,
  When,
} from '../ui';
import type { ApiError } from '../api';

interface Suppression {
  id: string;
  email: string;
  reason: string;
  source: string;
  message_id: string | null;
  created_at: string;
}

const REASONS = [
  'hard_bounce',
  'spam_complaint',
  'unsubscribe',
  'manual_block',
  'repeated_soft_bounce',
  'abuse_decision',
  'invalid_address',
];

export function Suppressions() {
  const cursor = useCursor();
  const [reason, setReason] = useState('');
  const [email, setEmail] = useState('');
  const [newReason, setNewReason] = useState('manual_block');
  const [lookup, setLookup] = useState('');
  const [found, setFound] = useState<{ email: string; row?: Suppression; error?: ApiError }>();
  const load = useLoad(
    () =>
      get<{ data: Suppression[]; has_more: boolean }>(
        `/v1/suppressions${query({ limit: 25, after: cursor.after, reason })}`,
      ),
    [cursor.after, reason],
  );
  const remove = (address: string) => async () => {
    await del(`/v1/suppressions/${encodeURIComponent(address)}`);
    if (found?.email === address) setFound(undefined);
    load.reload();
  };
  return (
    <>
      <PageHeader title="Suppressions" />
      <div class="two-col">
        <form
          class="form"
          aria-label="Look up an address"
          onSubmit={async (e) => {
            e.preventDefault();
            const address = lookup.trim();
            try {
              setFound({
                email: address,
                row: await get<Suppression>(`/v1/suppressions/${encodeURIComponent(address)}`),
              });
            } catch (error) {
              setFound({ email: address, error: toApiError(error) });
            }
          }}
        >
          <h2>Look up an address</h2>
          <Field
            label="Email address"
            type="email"
            required
            value={lookup}
            onInput={(e) => setLookup(e.currentTarget.value)}
          />
          <button type="submit">Look up</button>
          {found && (
            <div role="status" class="lookup">
              {found.row ? (
                <p>
                  <strong>{found.row.email}</strong> is suppressed: <Status value={found.row.reason} /> since{' '}
                  <When at={found.row.created_at} />.{' '}
                  <ActionButton action={remove(found.row.email)}>Remove</ActionButton>
                </p>
              ) : found.error?.status === 404 ? (
                <p>
                  <strong>{found.email}</strong> is not suppressed.
                </p>
              ) : (
                <ErrorNote error={found.error} />
              )}
            </div>
          )}
        </form>
        <Form
          label="Suppress an address"
          submit="Suppress"
          busy="Adding…"
          onSubmit={async () => {
            await post('/v1/suppressions', { email: email.trim(), reason: newReason });
            setEmail('');
            cursor.reset();
            load.reload();
          }}
        >
          <h2>Suppress an address</h2>
          <Field
            label="Email address"
            type="email"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
          <Select
            label="Reason"
            value={newReason}
            options={REASONS}
            onChange={(e) => setNewReason(e.currentTarget.value)}
          />
        </Form>
      </div>
      <div class="filters">
        <Select
          label="Reason"
          value={reason}
          options={[['', 'Any reason'], ...REASONS.map((r): [string, string] => [r, r.replace(/_/g, ' ')])]}
          onChange={(e) => {
            cursor.reset();
            setReason(e.currentTarget.value);
          }}
        />
      </div>
      <Show load={load}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No suppressed addresses.">
              Hard bounces, complaints and unsubscribes add addresses here.
            </Empty>
          ) : (
            <>
              <Table caption="Suppressed addresses" head={['Address', 'Reason', 'Source', 'Since', '']}>
                {page.data.map((s) => (
                  <tr key={s.id}>
                    <td class="clip">{s.email}</td>
                    <td>
                      <Status value={s.reason} />
                    </td>
                    <td>{s.source}</td>
                    <td class="nowrap">
                      <When at={s.created_at} />
                    </td>
                    <td>
                      <ActionButton
                        label={`Remove ${s.email}`}
                        action={remove(s.email)}
                        confirm={`Remove ${s.email} from the suppression list?`}
                      >
                        Remove
                      </ActionButton>
                    </td>
                  </tr>
                ))}
              </Table>
              <CursorPager
                cursor={cursor}
                hasMore={page.has_more}
                lastId={page.data[page.data.length - 1]?.id}
              />
            </>
          )
        }
      </Show>
    </>
  );
}
