/**
 * One received message: envelope, authentication results (SPF, DKIM, DMARC, ARC), attachments with
 * their scan state (clean ones download), text, headers, and its thread with a reply (HTML is never
 * rendered here).
 */
import { download, get } from '../api';
import { Link } from '../router';
import { ActionButton, PageHeader, Pre, Show, Status, Table, useLoad, When } from '../ui';
import { InboundThread } from './inbound-thread';

interface AuthResult {
  result: string;
  info: string;
  [key: string]: unknown;
}

interface Attachment {
  id: string;
  filename: string | null;
  content_type: string;
  size_bytes: number;
  scan_state: string;
  scan_signature: string | null;
  download_url: string | null;
}

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
  thread_id: string;
  auth: {
    spf: AuthResult | null;
    dkim: AuthResult[];
    dmarc: AuthResult | null;
    arc: AuthResult | null;
  };
  attachments: Attachment[];
  parse_error: string | null;
  processing: 'complete' | 'failed';
  processing_error: string | null;
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
            </dl>
            {m.parse_error && <p class="note warning">{m.parse_error}</p>}
            {m.processing === 'failed' && (
              <p class="note warning">
                Stored without processing (not parsed, authenticated or scanned): {m.processing_error}
              </p>
            )}
            <h2>Authentication</h2>
            <Table caption="Authentication results" head={['Check', 'Result', 'Details']}>
              {(
                [
                  ['SPF', m.auth.spf],
                  ...m.auth.dkim.map((d, i): [string, AuthResult] => [`DKIM ${i + 1}`, d]),
                  ['DMARC', m.auth.dmarc],
                  ['ARC', m.auth.arc],
                ] as [string, AuthResult | null][]
              ).map(([check, r]) => (
                <tr key={check}>
                  <td>{check}</td>
                  <td>{r ? <Status value={r.result} /> : <span class="muted">none</span>}</td>
                  <td class="wrap">{r?.info ?? ''}</td>
                </tr>
              ))}
            </Table>
            <h2>Attachments</h2>
            {m.attachments.length === 0 ? (
              <p class="muted">No attachments.</p>
            ) : (
              <Table caption="Attachments" head={['File', 'Type', 'Size', 'Scan', '']}>
                {m.attachments.map((a) => (
                  <tr key={a.id}>
                    <td class="clip">{a.filename ?? <span class="muted">(no name)</span>}</td>
                    <td>{a.content_type}</td>
                    <td class="nowrap">{a.size_bytes.toLocaleString('en')} bytes</td>
                    <td>
                      <Status value={a.scan_state} />
                      {a.scan_signature && <p class="hint">{a.scan_signature}</p>}
                    </td>
                    <td>
                      {a.download_url && (
                        <ActionButton
                          label={`Download ${a.filename ?? a.id}`}
                          action={() => download(a.download_url as string, a.filename ?? `${a.id}.bin`)}
                        >
                          Download
                        </ActionButton>
                      )}
                    </td>
                  </tr>
                ))}
              </Table>
            )}
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
            <InboundThread threadId={m.thread_id} messageId={m.id} />
          </>
        )}
      </Show>
    </>
  );
}
