/** One template: its draft (edit saves a new version), the check's findings, publish, versions and rollback. */
import { useState } from 'preact/hooks';
import { del, get, post, put, query } from '../api';
import { Link, navigate } from '../router';
import { ActionButton, Field, Form, PageHeader, Show, Status, Table, TextArea, useLoad, When } from '../ui';
import { variablesOf } from './templates';

interface Template {
  id: string;
  slug: string | null;
  name: string;
  subject: string;
  html_body: string | null;
  text_body: string | null;
  variables: string[];
  version: number;
  published_version: number | null;
  has_unpublished_changes: boolean;
}
interface Version {
  id: string;
  version: number;
  status: string;
  subject: string;
  created_at: string;
  published_at: string | null;
}
interface Check {
  version: number;
  checked_at: string;
  passed: boolean;
  html_bytes: number;
  link_count: number;
  image_count: number;
  issues: { code: string; severity: string; message: string; target?: string }[];
}

export function TemplateDetail({ params }: { params: Record<string, string> }) {
  const id = params.id as string;
  const template = useLoad(() => get<Template>(`/v1/templates/${id}`), [id]);
  const versions = useLoad(
    () => get<{ data: Version[]; has_more: boolean }>(`/v1/templates/${id}/versions${query({ limit: 50 })}`),
    [id],
  );
  const [check, setCheck] = useState<Check>();
  const reload = () => {
    template.reload();
    versions.reload();
  };
  return (
    <>
      <p class="crumbs">
        <Link to="/templates">Templates</Link> / <span>{template.data?.name ?? id}</span>
      </p>
      <Show load={template}>
        {(t) => (
          <>
            <PageHeader title={t.name}>
              <ActionButton action={async () => setCheck(await post<Check>(`/v1/templates/${id}/check`))}>
                Check draft
              </ActionButton>
              <ActionButton
                class="primary"
                action={async () => {
                  await post(`/v1/templates/${id}/publish`);
                  reload();
                }}
              >
                Publish v{t.version}
              </ActionButton>
              <ActionButton
                label={`Delete template ${t.name}`}
                confirm={`Delete ${t.name} and all its versions? Sends naming it will be refused.`}
                action={async () => {
                  await del(`/v1/templates/${id}`);
                  navigate('/templates');
                }}
              >
                Delete
              </ActionButton>
            </PageHeader>
            <p>
              {t.published_version === null ? 'Not published yet.' : `Sends use v${t.published_version}.`}{' '}
              {t.has_unpublished_changes && `Draft v${t.version} is not published.`}
            </p>
            {check && <CheckResult check={check} />}
            <Editor template={t} onSaved={reload} />
          </>
        )}
      </Show>
      <section aria-labelledby="versions-title">
        <h2 id="versions-title">Versions</h2>
        <Show load={versions}>
          {(page) => (
            <Table
              caption="Versions, newest first"
              head={['Version', 'State', 'Subject', 'Created', 'Published', '']}
            >
              {page.data.map((v) => (
                <tr key={v.id}>
                  <td>v{v.version}</td>
                  <td>
                    <Status value={v.status} />
                  </td>
                  <td class="clip">{v.subject}</td>
                  <td class="nowrap">
                    <When at={v.created_at} />
                  </td>
                  <td class="nowrap">
                    <When at={v.published_at} />
                  </td>
                  <td>
                    {v.status === 'archived' && (
                      <ActionButton
                        label={`Roll back to v${v.version}`}
                        confirm={`Make v${v.version} the version sends use?`}
                        action={async () => {
                          await post(`/v1/templates/${id}/rollback/${v.version}`);
                          reload();
                        }}
                      >
                        Roll back
                      </ActionButton>
                    )}
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </Show>
      </section>
    </>
  );
}

function CheckResult({ check }: { check: Check }) {
  return (
    <section
      class={`card check ${check.passed ? 'passed' : 'failed'}`}
      aria-labelledby="check-title"
      role="status"
    >
      <h2 id="check-title">
        Check of v{check.version}: {check.passed ? 'passed' : 'failed'}
      </h2>
      <p class="muted">
        {check.html_bytes.toLocaleString('en')} bytes of HTML · {check.link_count} links · {check.image_count}{' '}
        images
      </p>
      {check.issues.length === 0 ? (
        <p>No findings.</p>
      ) : (
        <ul class="issues">
          {check.issues.map((issue, i) => (
            <li key={`${issue.code}-${i}`}>
              <Status value={issue.severity} /> <code>{issue.code}</code> {issue.message}
              {issue.target && <span class="muted"> ({issue.target})</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Editor({ template, onSaved }: { template: Template; onSaved: () => void }) {
  const [form, setForm] = useState({
    name: template.name,
    subject: template.subject,
    html_body: template.html_body ?? '',
    text_body: template.text_body ?? '',
    variables: template.variables.join(', '),
  });
  const set = (field: keyof typeof form) => (e: { currentTarget: { value: string } }) =>
    setForm({ ...form, [field]: e.currentTarget.value });
  return (
    <Form
      label="Edit the draft"
      submit="Save as a new version"
      busy="Saving…"
      onSubmit={async () => {
        await put(`/v1/templates/${template.id}`, {
          name: form.name,
          ...(template.slug ? { slug: template.slug } : {}),
          subject: form.subject,
          ...(form.html_body ? { html_body: form.html_body } : {}),
          ...(form.text_body ? { text_body: form.text_body } : {}),
          variables: variablesOf(form.variables),
        });
        onSaved();
      }}
    >
      <h2>Draft</h2>
      <Field label="Name" required maxLength={80} value={form.name} onInput={set('name')} />
      <Field label="Subject" required maxLength={300} value={form.subject} onInput={set('subject')} />
      <TextArea label="HTML body" rows={10} value={form.html_body} onInput={set('html_body')} />
      <TextArea label="Text body" rows={5} value={form.text_body} onInput={set('text_body')} />
      <Field
        label="Variables"
        value={form.variables}
        onInput={set('variables')}
        hint="Separated by commas."
      />
    </Form>
  );
}
