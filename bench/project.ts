/**
 * A benchmark's tenant: a bootstrapped project, a live API key with the given scopes (all by
 * default), optionally its owner's password (to sign in to the dashboard), and optionally a sending domain marked verified straight in the store (no DNS to publish),
 * on either engine.
 */
import type { RunningServer } from '../src/server.js';

export interface BenchProject {
  readonly projectId: string;
  readonly key: string;
}

export async function benchProject(
  server: RunningServer,
  options: {
    readonly email: string;
    readonly scopes?: readonly string[];
    readonly password?: string;
    readonly domain?: string;
  },
): Promise<BenchProject> {
  const { projectId } = await server.services.projects.bootstrap(
    { email: options.email, organization: 'Bench', project: 'Bench' },
    'bench',
  );
  const scopes = [...(options.scopes ?? ['full_access'])];
  const { key } = await server.services.keys.create({ projectId, scopes, mode: 'live' }, 'bench');
  if (options.password !== undefined) {
    const { users } = server.services.accounts;
    const owner = await users.findByEmail(options.email);
    if (!owner) throw new Error('no owner');
    await users.setPassword(owner, options.password);
  }
  if (options.domain !== undefined) {
    const now = Date.now();
    const { db } = server.kernel;
    await db
      .insertInto('domains')
      .values({
        id: 'dom_bench',
        project_id: projectId,
        name: options.domain,
        region: 'eu',
        status: 'verified',
        checks: '{}',
        created_at: now,
        updated_at: now,
        verified_at: now,
      })
      .execute();
    // As verifying a domain through the API does: the project leaves the sandbox.
    await db.updateTable('projects').set({ status: 'active' }).where('id', '=', projectId).execute();
  }
  return { projectId, key };
}
