/**
 * Row types of templates and their immutable versions.
 */
import type { JsonText } from './columns.js';

export interface TemplatesTable {
  id: string;
  project_id: string;
  slug: string | null;
  /** The newest version: the current draft (or the published one when it was published). */
  latest_version: number;
  published_version: number | null;
  created_at: number;
  updated_at: number;
}

/** Immutable: a version is written once and never updated except for `published_at`. */
export interface TemplateVersionsTable {
  id: string;
  template_id: string;
  version: number;
  name: string;
  subject: string;
  html_body: string | null;
  text_body: string | null;
  /** JSON list of declared variable names. */
  variables: JsonText;
  created_at: number;
  /** When this version last became the published one. */
  published_at: number | null;
}
