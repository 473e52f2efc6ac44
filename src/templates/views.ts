/** Rows to the JSON shapes of schemas.ts; times become ISO strings here, at the edge. */
import type { TemplateWithDraft, VersionRow } from './store.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function templateRecord(row: TemplateWithDraft) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    subject: row.subject,
    html_body: row.html_body,
    text_body: row.text_body,
    variables: JSON.parse(row.variables) as string[],
    version: row.latest_version,
    published_version: row.published_version,
    has_unpublished_changes: row.published_version !== row.latest_version,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function templateSummary(row: TemplateWithDraft) {
  const { subject: _s, html_body: _h, text_body: _t, variables: _v, ...summary } = templateRecord(row);
  return summary;
}

export function versionRecord(
  row: VersionRow,
  template: { latest_version: number; published_version: number | null },
) {
  const status =
    row.version === template.published_version
      ? 'published'
      : row.version === template.latest_version
        ? 'draft'
        : 'archived';
  return {
    id: row.id,
    version: row.version,
    status: status as 'published' | 'draft' | 'archived',
    name: row.name,
    subject: row.subject,
    html_body: row.html_body,
    text_body: row.text_body,
    variables: JSON.parse(row.variables) as string[],
    created_at: iso(row.created_at),
    published_at: row.published_at === null ? null : iso(row.published_at),
  };
}
