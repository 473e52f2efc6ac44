/**
 * Contact import on an audience's page: the chosen CSV or JSON-lines file is uploaded as it is (the
 * server streams and checks each row), and the report lists the rows refused with their reasons.
 */
import { useId, useState } from 'preact/hooks';
import { api, RawBody } from '../api';
import { Form, Table } from '../ui';

interface ImportReport {
  rows: number;
  created: number;
  updated: number;
  refused: number;
  errors: { line: number; email: string | null; error: string }[];
  errors_truncated: boolean;
}

/** Uploads a CSV (header line) or JSON-lines file as it is; the server streams it. */
export function ImportContacts({ audienceId, onImported }: { audienceId: string; onImported: () => void }) {
  const [file, setFile] = useState<File>();
  const [report, setReport] = useState<ImportReport>();
  const inputId = useId();
  return (
    <details class="import">
      <summary>Import contacts from a file</summary>
      <Form
        label="Import contacts"
        submit="Import"
        busy="Importing…"
        onSubmit={async () => {
          if (!file) return;
          setReport(undefined);
          const jsonl = /\.(jsonl|ndjson)$/i.test(file.name) || file.type === 'application/x-ndjson';
          const type = jsonl ? 'application/x-ndjson' : 'text/csv';
          setReport(
            await api<ImportReport>(
              'POST',
              `/v1/audiences/${audienceId}/contacts/import`,
              new RawBody(file, type),
            ),
          );
          onImported();
        }}
      >
        <div class="field">
          <label for={inputId}>CSV or JSON-lines file</label>
          <input
            id={inputId}
            type="file"
            required
            accept=".csv,.jsonl,.ndjson,text/csv,application/x-ndjson"
            aria-describedby={`${inputId}-hint`}
            onChange={(e) => setFile(e.currentTarget.files?.[0])}
          />
          <p class="hint" id={`${inputId}-hint`}>
            CSV with a header line: <code>email</code>, <code>consent_source</code>, <code>consent_at</code>{' '}
            (each row needs its consent), <code>first_name</code>, <code>last_name</code>; other columns
            become metadata. Or one JSON contact per line.
          </p>
        </div>
      </Form>
      {report && <ImportResult report={report} />}
    </details>
  );
}

function ImportResult({ report: r }: { report: ImportReport }) {
  return (
    <section aria-label="Import report">
      <p role="status">
        {r.rows} rows read: {r.created} added, {r.updated} updated, {r.refused} refused.
      </p>
      {r.errors.length > 0 && (
        <Table caption="Refused rows" head={['Line', 'Email', 'Why']}>
          {r.errors.map((e) => (
            <tr key={e.line}>
              <td>{e.line}</td>
              <td class="clip">{e.email ?? <span class="muted">—</span>}</td>
              <td>{e.error}</td>
            </tr>
          ))}
        </Table>
      )}
      {r.errors_truncated && <p class="hint">Only the first {r.errors.length} refused rows are listed.</p>}
    </section>
  );
}
