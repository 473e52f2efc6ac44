/**
 * A benchmark's tenant: a bootstrapped project, a live API key with the given scopes (all by
 * default), and optionally a sending domain marked verified straight in the store (no DNS to publish).
 */
import type { RunningServer } from '../src/server.js';

export interface BenchProject {
  readonly projectId: string;
  readonly key: string;
}

export async function benchProject(
  server: RunningServer,
  options: { readonly email: string; readonly scopes?: readonly string[]; readonly domain?: string },
): Promise<BenchProject> {
  const { projectId } = await server.services.projects.bootstrap(
    { email: options.email, organization: 'Bench', project: 'Bench' },
    'bench',
  );
  const scopes = [...(options.scopes ?? ['full_access'])];
  const { key } = await server.services.keys.create({ projectId, scopes, mode: 'live' }, 'bench');
  if (options.domain !== undefined) {
    const now = Date.now();
    server.kernel.store.sqlite
      .prepare(
        `insert into domains (id, project_id, name, region, status, checks, created_at, updated_at, verified_at)
         values ('dom_bench', ?, ?, 'eu', 'verified', '{}', ?, ?, ?)`,
      )
      .run(projectId, options.domain, now, now, now);
    // As verifying a domain through the API does: the project leaves the sandbox.
    server.kernel.store.sqlite.prepare(`update projects set status = 'active' where id = ?`).run(projectId);
  }
  return { projectId, key };
}
