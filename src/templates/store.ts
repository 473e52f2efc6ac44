/** The only file that queries `templates` and `template_versions`. */
import type { Db } from '../platform/db/database.js';
import type { TemplatesTable, TemplateVersionsTable } from '../platform/db/tables.js';
import type { TemplateContent } from './parsed.js';

export type TemplateRow = TemplatesTable;
export type VersionRow = TemplateVersionsTable;
/** A template with its newest version's content. */
export type TemplateWithDraft = TemplateRow &
  Omit<VersionRow, 'id' | 'template_id' | 'created_at' | 'published_at'>;

export function createTemplateStore(db: Db) {
  const withDraft = (executor: Db) =>
    executor
      .selectFrom('templates')
      .innerJoin('template_versions as v', (join) =>
        join.onRef('v.template_id', '=', 'templates.id').onRef('v.version', '=', 'templates.latest_version'),
      )
      .selectAll('templates')
      .select(['v.version', 'v.name', 'v.subject', 'v.html_body', 'v.text_body', 'v.variables']);

  return {
    transaction<T>(work: (trx: Db) => Promise<T>): Promise<T> {
      return db.transaction().execute(work);
    },

    async insertTemplate(executor: Db, row: TemplateRow): Promise<void> {
      await executor.insertInto('templates').values(row).execute();
    },

    async insertVersion(executor: Db, row: VersionRow): Promise<void> {
      await executor.insertInto('template_versions').values(row).execute();
    },

    /** By ID when `ref` is one (`tpl_...` never matches the slug pattern), else by slug. */
    async find(projectId: string, ref: string, executor: Db = db): Promise<TemplateWithDraft | undefined> {
      const column = ref.startsWith('tpl_') ? 'templates.id' : 'templates.slug';
      return withDraft(executor)
        .where('templates.project_id', '=', projectId)
        .where(column, '=', ref)
        .executeTakeFirst();
    },

    /**
     * A template (by ID or slug), its published version's ID and declared variables, in ONE query:
     * a DELETE cannot fall between reading the template and reading its version. The version's
     * columns are null when nothing is published. Not its content: a send renders from the cached
     * parse of the version and reads the content (`versionContent`) only when that is not kept.
     */
    async findPublished(projectId: string, ref: string) {
      const column = ref.startsWith('tpl_') ? 'templates.id' : 'templates.slug';
      return db
        .selectFrom('templates')
        .leftJoin('template_versions as v', (join) =>
          join
            .onRef('v.template_id', '=', 'templates.id')
            .onRef('v.version', '=', 'templates.published_version'),
        )
        .select(['templates.id', 'templates.published_version'])
        .select(['v.id as version_id', 'v.version', 'v.variables'])
        .where('templates.project_id', '=', projectId)
        .where(column, '=', ref)
        .executeTakeFirst();
    },

    /** The subject and bodies of a version, by its ID (a version never changes once stored). */
    async versionContent(versionId: string): Promise<TemplateContent | undefined> {
      return db
        .selectFrom('template_versions')
        .select(['subject', 'html_body', 'text_body'])
        .where('id', '=', versionId)
        .executeTakeFirst();
    },

    async slugTaken(executor: Db, projectId: string, slug: string, exceptId?: string): Promise<boolean> {
      let query = executor
        .selectFrom('templates')
        .select('id')
        .where('project_id', '=', projectId)
        .where('slug', '=', slug);
      if (exceptId) query = query.where('id', '!=', exceptId);
      return (await query.executeTakeFirst()) !== undefined;
    },

    async getVersion(
      templateId: string,
      version: number,
      executor: Db = db,
    ): Promise<VersionRow | undefined> {
      return executor
        .selectFrom('template_versions')
        .selectAll()
        .where('template_id', '=', templateId)
        .where('version', '=', version)
        .executeTakeFirst();
    },

    async setLatest(
      executor: Db,
      id: string,
      changes: { latest_version: number; slug: string | null; updated_at: number },
    ) {
      await executor.updateTable('templates').set(changes).where('id', '=', id).execute();
    },

    async publish(executor: Db, id: string, version: number, at: number): Promise<void> {
      await executor
        .updateTable('templates')
        .set({ published_version: version, updated_at: at })
        .where('id', '=', id)
        .execute();
      await executor
        .updateTable('template_versions')
        .set({ published_at: at })
        .where('template_id', '=', id)
        .where('version', '=', version)
        .execute();
    },

    async remove(projectId: string, id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('templates')
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    /** Newest first; `after` is the last ID of the previous page. */
    async list(
      projectId: string,
      options: { limit: number; after?: string | undefined },
    ): Promise<TemplateWithDraft[]> {
      let query = withDraft(db).where('templates.project_id', '=', projectId);
      if (options.after) query = query.where('templates.id', '<', options.after);
      return query.orderBy('templates.id', 'desc').limit(options.limit).execute();
    },

    /** Newest first; `after` is the last version ID of the previous page. */
    async listVersions(
      templateId: string,
      options: { limit: number; after?: string | undefined },
    ): Promise<VersionRow[]> {
      let query = db.selectFrom('template_versions').selectAll().where('template_id', '=', templateId);
      if (options.after) query = query.where('id', '<', options.after);
      return query.orderBy('version', 'desc').limit(options.limit).execute();
    },
  };
}

export type TemplateStore = ReturnType<typeof createTemplateStore>;
