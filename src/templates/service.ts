/**
 * Versioned templates (spec §3.2): create gives version 1 as a draft, every PUT saves a new
 * immutable version, publish points sending at the newest version, rollback at an older one.
 * `renderForSend` is what the send API calls; it only ever renders the published version.
 */
import type { Db } from '../platform/db/database.js';
import { isUniqueViolation } from '../platform/db/unique-violation.js';
import { AppError, badRequest, conflict, notFound } from '../platform/http/errors.js';
import { newId } from '../platform/ids.js';
import { assertPlaceholdersMatch } from './content-rules.js';
import { type CheckDependencies, checkVersion } from './check/template-check.js';
import { createParsedCache, type ParsedCache, type ParsedCacheLimits } from './parsed-cache.js';
import { renderParsed } from './render.js';
import type { CheckResult, TemplateRequest } from './schemas.js';
import type { TemplateStore, TemplateWithDraft, VersionRow } from './store.js';
import { assertExactVariables } from './variables.js';
import { templateRecord, templateSummary, versionRecord } from './views.js';

export interface RenderedTemplate {
  readonly templateId: string;
  readonly version: number;
  readonly subject: string;
  readonly html: string | null;
  readonly text: string | null;
}

interface Page {
  readonly limit: number;
  readonly after?: string | undefined;
}

function templateNotFound(ref: string): AppError {
  return notFound(`Template ${ref}`);
}

/** The 400 a send naming an unknown template gets. */
function noSuchTemplate(ref: string): AppError {
  return badRequest(`template: no template "${ref}" exists in this project.`, [
    { path: 'template', message: 'does not exist' },
  ]);
}

export interface TemplateOptions {
  /** `limits.max_body_bytes`: no rendered body may be larger than a direct send's could be. */
  readonly maxBodyBytes: number;
  /** Bounds of the cache of parsed versions (parsed-cache.ts); its defaults when absent. */
  readonly parsedCache?: ParsedCacheLimits;
}

export function createTemplateService(
  store: TemplateStore,
  deps: CheckDependencies,
  options: TemplateOptions,
) {
  const parsed = createParsedCache(options.parsedCache);
  const load = async (projectId: string, ref: string, executor?: Db): Promise<TemplateWithDraft> => {
    const row = await store.find(projectId, ref, executor);
    if (!row) throw templateNotFound(ref);
    return row;
  };

  /** A version's content for its first parse; gone only if its template was deleted since. */
  const contentOf = async (ref: string, versionId: string) => {
    const content = await store.versionContent(versionId);
    if (!content) throw noSuchTemplate(ref);
    return content;
  };

  const versionRow = (
    templateId: string,
    version: number,
    at: number,
    body: TemplateRequest,
  ): VersionRow => ({
    id: newId('tpv', at),
    template_id: templateId,
    version,
    name: body.name,
    subject: body.subject,
    html_body: body.html_body ?? null,
    text_body: body.text_body ?? null,
    variables: JSON.stringify(body.variables),
    created_at: at,
    published_at: null,
  });

  const slugConflict = (slug: string) =>
    conflict(`slug: "${slug}" is already used by another template of this project.`);

  const guardSlug = async <T>(slug: string | undefined, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (slug !== undefined && isUniqueViolation(error)) throw slugConflict(slug);
      throw error;
    }
  };

  return {
    /** The parsed versions this service keeps (read by tests and `scripts/bench templates`). */
    parsedVersions: parsed as Pick<ParsedCache, 'clear' | 'size' | 'bytes'>,
    async create(projectId: string, body: TemplateRequest) {
      assertPlaceholdersMatch(body);
      const at = Date.now();
      const id = newId('tpl', at);
      await guardSlug(body.slug, () =>
        store.transaction(async (trx) => {
          if (body.slug !== undefined && (await store.slugTaken(trx, projectId, body.slug)))
            throw slugConflict(body.slug);
          await store.insertTemplate(trx, {
            id,
            project_id: projectId,
            slug: body.slug ?? null,
            latest_version: 1,
            published_version: null,
            created_at: at,
            updated_at: at,
          });
          await store.insertVersion(trx, versionRow(id, 1, at, body));
        }),
      );
      return templateRecord(await load(projectId, id));
    },

    /** Saves a new draft version; the slug is kept when the body leaves it out. */
    async update(projectId: string, ref: string, body: TemplateRequest) {
      assertPlaceholdersMatch(body);
      const id = await guardSlug(body.slug, () =>
        store.transaction(async (trx) => {
          const current = await load(projectId, ref, trx);
          const at = Date.now();
          if (body.slug !== undefined && (await store.slugTaken(trx, projectId, body.slug, current.id))) {
            throw slugConflict(body.slug);
          }
          const version = current.latest_version + 1;
          await store.insertVersion(trx, versionRow(current.id, version, at, body));
          await store.setLatest(trx, current.id, {
            latest_version: version,
            slug: body.slug ?? current.slug,
            updated_at: at,
          });
          return current.id;
        }),
      );
      return templateRecord(await load(projectId, id));
    },

    async get(projectId: string, ref: string) {
      return templateRecord(await load(projectId, ref));
    },

    async list(projectId: string, page: Page) {
      const rows = await store.list(projectId, { ...page, limit: page.limit + 1 });
      return { data: rows.slice(0, page.limit).map(templateSummary), has_more: rows.length > page.limit };
    },

    /** Deletes the template and every version. */
    async remove(projectId: string, ref: string): Promise<void> {
      const row = await load(projectId, ref);
      if (!(await store.remove(projectId, row.id))) throw templateNotFound(ref);
    },

    async versions(projectId: string, ref: string, page: Page) {
      const row = await load(projectId, ref);
      const rows = await store.listVersions(row.id, { ...page, limit: page.limit + 1 });
      return {
        template_id: row.id,
        published_version: row.published_version,
        data: rows.slice(0, page.limit).map((version) => versionRecord(version, row)),
        has_more: rows.length > page.limit,
      };
    },

    /** The current draft (the newest version) becomes the published one. */
    async publish(projectId: string, ref: string) {
      const id = await store.transaction(async (trx) => {
        const row = await load(projectId, ref, trx);
        if (row.published_version !== row.latest_version)
          await store.publish(trx, row.id, row.latest_version, Date.now());
        return row.id;
      });
      return templateRecord(await load(projectId, id));
    },

    /** Sending uses `version` again; it must exist and be a prior version, not the unpublished draft. */
    async rollback(projectId: string, ref: string, version: number) {
      const id = await store.transaction(async (trx) => {
        const row = await load(projectId, ref, trx);
        if (!(await store.getVersion(row.id, version, trx)))
          throw notFound(`Version ${version} of template ${ref}`);
        if (version === row.latest_version && row.published_version !== version) {
          throw badRequest(
            `version: ${version} is the current draft, not a prior version; publish it with POST /v1/templates/${row.id}/publish.`,
            [{ path: 'version', message: 'is the current draft' }],
          );
        }
        if (row.published_version !== version) await store.publish(trx, row.id, version, Date.now());
        return row.id;
      });
      return templateRecord(await load(projectId, id));
    },

    /** Spec §2.7 for the current draft, or for `version` when given. */
    async check(projectId: string, ref: string, version?: number): Promise<CheckResult> {
      const row = await load(projectId, ref);
      const wanted = version ?? row.latest_version;
      const target = await store.getVersion(row.id, wanted);
      if (!target) throw notFound(`Version ${wanted} of template ${ref}`);
      return checkVersion(deps, projectId, target);
    },

    /**
     * The published version of a template (by ID or slug) rendered with a send's variables,
     * which must be exactly the declared ones. 400 (naming `template` or `variables`) when the
     * template is unknown, has no published version, or the variables differ; 400 naming
     * `subject`, `html` or `text` when the rendered content breaks a rule of a direct send.
     *
     * @example
     * const r = await services.templates.renderForSend(projectId, 'password-reset', { name: 'Ann' });
     * // { templateId: 'tpl_...', version: 3, subject: 'Hi Ann', html: '<p>Hi Ann</p>', text: null }
     */
    async renderForSend(
      projectId: string,
      ref: string,
      variables: Readonly<Record<string, string>>,
    ): Promise<RenderedTemplate> {
      const row = await store.findPublished(projectId, ref);
      if (!row) throw noSuchTemplate(ref);
      if (row.published_version === null) {
        throw badRequest(`template: "${ref}" has no published version; publish it first.`, [
          { path: 'template', message: 'has no published version' },
        ]);
      }
      const { version_id: versionId, version, variables: declared } = row;
      if (versionId === null || version === null || declared === null)
        throw new AppError('internal', `published version ${row.published_version} of ${row.id} is missing`);
      assertExactVariables(JSON.parse(declared) as string[], variables);
      // Only now, with the template and its published version's ID read in one query: a deleted
      // template is refused above whatever the cache holds. On a hit nothing more is read.
      const content = parsed.cached(versionId) ?? parsed.get(versionId, await contentOf(ref, versionId));
      const rendered = renderParsed(content, variables, { maxBodyBytes: options.maxBodyBytes });
      return { templateId: row.id, version, ...rendered };
    },

    /**
     * The published version's subject, bodies and declared variables, unrendered: a broadcast
     * fills them per contact itself. 400 naming `template` as `renderForSend` does.
     */
    async publishedContent(projectId: string, ref: string) {
      const row = await store.findPublished(projectId, ref);
      if (!row) throw noSuchTemplate(ref);
      if (row.published_version === null || row.version_id === null || row.version === null) {
        throw badRequest(`template: "${ref}" has no published version; publish it first.`, [
          { path: 'template', message: 'has no published version' },
        ]);
      }
      const content = await contentOf(ref, row.version_id);
      return {
        templateId: row.id,
        version: row.version,
        subject: content.subject,
        html: content.html_body,
        text: content.text_body,
        variables: JSON.parse(row.variables ?? '[]') as string[],
      };
    },
  };
}

export type { CheckDependencies };
export type TemplateService = ReturnType<typeof createTemplateService>;
