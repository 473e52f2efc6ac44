/** Templates: the list, and a new draft. */
import { useState } from 'preact/hooks';
import { get, post, query } from '../api';
import { Link, navigate } from '../router';
import {
  CursorPager,
  Empty,
  Field,
  Form,
  PageHeader,
  Show,
  Table,
  TextArea,
  useCursor,
  useLoad,
  When,
} from '../ui';

export interface TemplateSummary {
  id: string;
  slug: string | null;
  name: string;
  version: number;
  published_version: number | null;
  has_unpublished_changes: boolean;
  updated_at: string;
}

export function variablesOf(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((v) => v.trim())
    .filter(Boolean);
}

export function Templates() {
  const cursor = useCursor();
  const [creating, setCreating] = useState(false);
  const [form, setForm] = useState({ name: '', slug: '', subject: '', html_body: '', variables: '' });
  const set = (field: keyof typeof form) => (e: { currentTarget: { value: string } }) =>
    setForm({ ...form, [field]: e.currentTarget.value });
  const load = useLoad(
    () =>
      get<{ data: TemplateSummary[]; has_more: boolean }>(
        `/v1/templates${query({ limit: 25, after: cursor.after })}`,
      ),
    [cursor.after],
  );
  return (
    <>
      <PageHeader title="Templates">
        <button type="button" class="primary" aria-expanded={creating} onClick={() => setCreating(!creating)}>
          New template
        </button>
      </PageHeader>
      {creating && (
        <Form
          label="New template"
          submit="Save draft"
          busy="Saving…"
          onSubmit={async () => {
            const created = await post<{ id: string }>('/v1/templates', {
              name: form.name,
              ...(form.slug ? { slug: form.slug } : {}),
              subject: form.subject,
              html_body: form.html_body,
              variables: variablesOf(form.variables),
            });
            navigate(`/templates/${created.id}`);
          }}
        >
          <Field label="Name" required maxLength={80} value={form.name} onInput={set('name')} />
          <Field
            label="Slug (optional)"
            value={form.slug}
            onInput={set('slug')}
            hint="Lower-case words joined by hyphens; sends may name the template by it."
          />
          <Field label="Subject" required maxLength={300} value={form.subject} onInput={set('subject')} />
          <TextArea label="HTML body" required rows={8} value={form.html_body} onInput={set('html_body')} />
          <Field
            label="Variables"
            value={form.variables}
            onInput={set('variables')}
            hint="The {{placeholders}} used, separated by commas."
          />
        </Form>
      )}
      <Show load={load}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No templates yet.">
              Templates are versioned: edit a draft, check it, publish it, roll back if needed.
            </Empty>
          ) : (
            <>
              <Table caption="Templates" head={['Name', 'Slug', 'Published', 'Draft', 'Updated']}>
                {page.data.map((t) => (
                  <tr key={t.id}>
                    <td>
                      <Link to={`/templates/${t.id}`}>{t.name}</Link>
                    </td>
                    <td>{t.slug ? <code>{t.slug}</code> : <span class="muted">—</span>}</td>
                    <td>
                      {t.published_version === null ? (
                        <span class="muted">never</span>
                      ) : (
                        `v${t.published_version}`
                      )}
                    </td>
                    <td>
                      {t.has_unpublished_changes ? (
                        `v${t.version} (unpublished)`
                      ) : (
                        <span class="muted">—</span>
                      )}
                    </td>
                    <td class="nowrap">
                      <When at={t.updated_at} />
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
