/**
 * A received message's thread (received and sent mail, oldest first, paged) and the reply form:
 * the reply goes out in the thread from a verified domain, once (an Idempotency-Key per form).
 */
import { useState } from 'preact/hooks';
import { api, get, query } from '../api';
import { Link } from '../router';
import { CursorPager, Field, Form, Show, Status, Table, TextArea, useCursor, useLoad, When } from '../ui';

interface Thread {
  id: string;
  subject: string;
  messages: {
    direction: 'inbound' | 'outbound';
    id: string;
    from: string;
    to: string[];
    subject: string;
    status?: string;
    created_at: string;
  }[];
  has_more: boolean;
}

export function InboundThread({ threadId, messageId }: { threadId: string; messageId: string }) {
  const cursor = useCursor();
  const load = useLoad(
    () =>
      get<Thread>(
        `/v1/inbound/threads/${encodeURIComponent(threadId)}${query({ limit: 25, after: cursor.after })}`,
      ),
    [threadId, cursor.after],
  );
  return (
    <section aria-labelledby="thread-title">
      <h2 id="thread-title">Thread</h2>
      <Show load={load}>
        {(thread) => (
          <>
            <Table
              caption="Messages of the thread, oldest first"
              head={['', 'From', 'To', 'Subject', 'When']}
            >
              {thread.messages.map((m) => (
                <tr key={m.id}>
                  <td>{m.direction === 'inbound' ? 'Received' : <Status value={m.status ?? 'sent'} />}</td>
                  <td class="clip">{m.from}</td>
                  <td class="clip">{m.to.join(', ')}</td>
                  <td class="clip">
                    <Link to={m.direction === 'inbound' ? `/inbound/${m.id}` : `/messages/${m.id}`}>
                      {m.subject || '(no subject)'}
                    </Link>
                  </td>
                  <td class="nowrap">
                    <When at={m.created_at} />
                  </td>
                </tr>
              ))}
            </Table>
            <CursorPager
              cursor={cursor}
              hasMore={thread.has_more}
              lastId={thread.messages[thread.messages.length - 1]?.id}
            />
          </>
        )}
      </Show>
      <Reply messageId={messageId} onSent={load.reload} />
    </section>
  );
}

function Reply({ messageId, onSent }: { messageId: string; onSent: () => void }) {
  const [from, setFrom] = useState('');
  const [text, setText] = useState('');
  const [key, setKey] = useState(() => crypto.randomUUID());
  const [sent, setSent] = useState(false);
  return (
    <Form
      label="Reply"
      submit="Send reply"
      busy="Sending…"
      onSubmit={async () => {
        setSent(false);
        await api(
          'POST',
          `/v1/inbound/emails/${encodeURIComponent(messageId)}/reply`,
          { from: from.trim(), text },
          { 'Idempotency-Key': key },
        );
        setText('');
        setKey(crypto.randomUUID());
        setSent(true);
        onSent();
      }}
    >
      <Field
        label="Reply from"
        required
        placeholder="Support <support@example.com>"
        hint="An address on a verified domain."
        value={from}
        onInput={(e) => setFrom(e.currentTarget.value)}
      />
      <TextArea
        label="Reply text"
        required
        rows={5}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      {sent && (
        <p class="ok" role="status">
          Reply queued.
        </p>
      )}
    </Form>
  );
}
