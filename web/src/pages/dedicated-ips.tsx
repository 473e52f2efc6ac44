/**
 * The reputation page's dedicated-IP part: the project's requests with the operator's review, the
 * assigned address with its warm-up (day of the plan, today's limit and what went out from it), and
 * a form to ask for one.
 */
import { useState } from 'preact/hooks';
import { post } from '../api';
import { Empty, Field, Form, Status, Table, TextArea, When } from '../ui';

export interface DedicatedIps {
  requests: {
    id: string;
    status: string;
    monthly_volume: number;
    reason: string;
    created_at: string;
    review: { decision: string; note: string | null; ip: string | null; reviewed_at: string } | null;
  }[];
  assignments: {
    ip: string;
    assigned_at: string;
    plan: { name: string; daily_limits: number[] };
    warmup: {
      day: number;
      days: number;
      complete: boolean;
      limit_per_provider_today: number | null;
      sent_today: Record<string, number>;
    };
  }[];
}

export function DedicatedIpsSection({ ips, onChanged }: { ips: DedicatedIps; onChanged: () => void }) {
  const [volume, setVolume] = useState('');
  const [reason, setReason] = useState('');
  const pending = ips.requests.some((r) => r.status === 'pending');
  return (
    <section aria-labelledby="dedicated-title">
      <h2 id="dedicated-title">Dedicated IP</h2>
      {ips.assignments.map((a) => (
        <dl class="facts" key={a.ip}>
          <dt>Address</dt>
          <dd>
            <code>{a.ip}</code> <span class="muted">since</span> <When at={a.assigned_at} />
          </dd>
          <dt>Warm-up</dt>
          <dd>
            {a.warmup.complete
              ? `complete (${a.plan.name})`
              : `day ${a.warmup.day} of ${a.warmup.days} (${a.plan.name}): up to ${
                  a.warmup.limit_per_provider_today ?? '—'
                } per provider today; the rest goes out shared`}
          </dd>
          <dt>Sent from it today</dt>
          <dd>
            {Object.entries(a.warmup.sent_today)
              .map(([lane, n]) => `${lane}: ${n}`)
              .join(', ') || <span class="muted">nothing yet</span>}
          </dd>
        </dl>
      ))}
      {ips.requests.length === 0 ? (
        ips.assignments.length === 0 && (
          <Empty title="No dedicated IP.">Mail leaves from the shared addresses.</Empty>
        )
      ) : (
        <Table caption="Dedicated IP requests" head={['Asked', 'Monthly volume', 'Reason', 'Review']}>
          {ips.requests.map((r) => (
            <tr key={r.id}>
              <td class="nowrap">
                <When at={r.created_at} />
              </td>
              <td>{r.monthly_volume.toLocaleString('en')}</td>
              <td class="wrap">{r.reason}</td>
              <td class="wrap">
                <Status value={r.status} />
                {r.review?.ip && (
                  <>
                    {' '}
                    <code>{r.review.ip}</code>
                  </>
                )}
                {r.review?.note && <p class="hint">{r.review.note}</p>}
              </td>
            </tr>
          ))}
        </Table>
      )}
      {!pending && ips.assignments.length === 0 && (
        <Form
          label="Ask for a dedicated IP"
          submit="Ask for a dedicated IP"
          busy="Sending the request…"
          onSubmit={async () => {
            await post('/v1/dedicated-ips/requests', {
              monthly_volume: Number(volume),
              reason: reason.trim(),
            });
            setVolume('');
            setReason('');
            onChanged();
          }}
        >
          <Field
            label="Messages per month"
            type="number"
            min={1}
            required
            value={volume}
            onInput={(e) => setVolume(e.currentTarget.value)}
            hint="An operator sizes the warm-up by it."
          />
          <TextArea
            label="Why the project needs its own IP"
            required
            maxLength={1000}
            rows={3}
            value={reason}
            onInput={(e) => setReason(e.currentTarget.value)}
          />
        </Form>
      )}
    </section>
  );
}
