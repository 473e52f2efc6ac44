/** One received message: envelope, authentication results, headers, text (HTML is never rendered here). */
import { get } from '../api';
import { Link } from '../router';
import { PageHeader, Pre, Show, Table, useLoad, When } from '../ui';

interface InboundMessage {
  id: string;
  from: string;
  to: string[];
  cc: string[];
  subject: string;
  created_at: string;
  text: string | null;
  html: string | null;
  headers: { name: string; value: string }[];
  envelope: { mail_from: string; rcpt_to: string[]; remote_ip: string; helo: string; tls: boolean };
  attachment_count: number;
}

export function InboundDetail({ params }: { params: Record<string, string> }) {
  const id = params.id as string;
  const load = useLoad(() => get<InboundMessage>(`/v1/inbound/emails/${encodeURIComponent(id)}`), [id]);
  return (
    <>
      <p class="crumbs">
        <Link to="/inbound">Inbound</Link> / <span>{id}</span>
      </p>
      <Show load={load}>
        {(m) => (
          <>
            <PageHeader title={m.subject || '(no subject)'} />
            <dl class="facts">
              <dt>From</dt>
              <dd>{m.from}</dd>
              <dt>To</dt>
              <dd>{m.to.join(', ')}</dd>
              <dt>Received</dt>
              <dd>
                <When at={m.created_at} />
              </dd>
              <dt>Envelope</dt>
              <dd>
                MAIL FROM {m.envelope.mail_from || '<>'} from {m.envelope.remote_ip} ({m.envelope.helo})
                {m.envelope.tls ? ', TLS' : ', no TLS'}
              </dd>
              <dt>Attachments</dt>
              <dd>{m.attachment_count}</dd>
            </dl>
            <h2>Text</h2>
            {m.text ? <Pre class="body-text">{m.text}</Pre> : <p class="muted">No plain-text part.</p>}
            <h2>Headers</h2>
            <Table caption="Headers in message order" head={['Name', 'Value']}>
              {m.headers.map((h, i) => (
                <tr key={`${h.name}-${i}`}>
                  <td>
                    <code>{h.name}</code>
                  </td>
                  <td class="wrap">{h.value}</td>
                </tr>
              ))}
            </Table>
          </>
        )}
      </Show>
    </>
  );
}
