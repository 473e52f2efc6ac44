/** `posthorn admin keys create|list|revoke`. */
import { keyLifetimeProblem, MAX_KEY_LIFETIME_DAYS } from '../auth/key-lifetime.js';
import { SCOPES, unknownScope } from '../auth/scopes.js';
import { notFound } from '../platform/http/errors.js';
import { parseDuration } from '../platform/config/duration.js';
import {
  type Command,
  type Group,
  MAX_NAME_CHARS,
  nameOption,
  requireOption,
  stringOption,
  UsageError,
} from './command.js';
import { withAdmin } from './context.js';
import { printTable } from './output.js';

const createCommand: Command = {
  kind: 'command',
  name: 'create',
  summary: 'Issue an API key for a project; the key is printed once and stored only as a hash.',
  options: {
    project: { type: 'string' },
    scopes: { type: 'string' },
    name: { type: 'string' },
    test: { type: 'boolean' },
    'expires-in': { type: 'string' },
    json: { type: 'boolean' },
  },
  help: {
    project: 'Project ID (prj_...). Required.',
    scopes: 'Comma-separated scopes, e.g. emails:send,emails:read (default: full_access).',
    name: `A label to tell keys apart (at most ${MAX_NAME_CHARS} characters).`,
    test: 'Issue a ph_test_ key: the whole pipeline runs, nothing leaves the machine.',
    'expires-in': `Lifetime such as 30d or 12h, at most ${MAX_KEY_LIFETIME_DAYS}d (default: never expires).`,
    json: 'Print JSON.',
  },
  async run(values, _positionals, io) {
    const projectId = requireOption(values, 'project');
    const scopes = (stringOption(values, 'scopes') ?? 'full_access')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    // A mistyped scope is a usage error (exit 2, like a bad --expires-in), and the list says what fits.
    if (scopes.length === 0) throw new UsageError('--scopes names no scope.');
    const unknown = unknownScope(scopes);
    if (unknown !== undefined)
      throw new UsageError(`--scopes: unknown scope "${unknown}". Scopes: ${SCOPES.join(', ')}.`);
    const expires = stringOption(values, 'expires-in');
    let expiresInMs: number | undefined;
    if (expires !== undefined) {
      if (!/^\d+(m|h|d)$/.test(expires)) throw new UsageError('--expires-in must look like 90m, 12h or 30d.');
      expiresInMs = parseDuration(expires);
      const problem = keyLifetimeProblem(expiresInMs);
      if (problem) throw new UsageError(`--expires-in ${expires}: ${problem}`);
    }
    const name = nameOption(values, 'name', 'key');
    const created = await withAdmin(values, ({ services }) =>
      services.keys.create(
        {
          projectId,
          scopes,
          mode: values.test ? 'test' : 'live',
          ...(name ? { name } : {}),
          ...(expiresInMs !== undefined ? { expiresInMs } : {}),
        },
        'cli',
      ),
    );
    if (values.json) io.out(JSON.stringify({ ...created.view, api_key: created.key }, null, 2));
    else {
      io.out(`API key ${created.view.id} for ${projectId} (scopes: ${created.view.scopes.join(', ')}).`);
      io.out(`Key (shown once, store it now): ${created.key}`);
    }
    return 0;
  },
};

const listCommand: Command = {
  kind: 'command',
  name: 'list',
  summary: "List a project's API keys (hints only, never the keys).",
  options: { project: { type: 'string' }, json: { type: 'boolean' } },
  help: { project: 'Project ID (prj_...). Required.', json: 'Print JSON.' },
  async run(values, _positionals, io) {
    const projectId = requireOption(values, 'project');
    // A mistyped project ID is "not found" here as in `keys create`, not an empty list.
    const keys = await withAdmin(values, async ({ services }) => {
      if (!(await services.projects.get(projectId))) throw notFound(`Project ${projectId}`);
      return services.keys.list(projectId);
    });
    if (values.json) io.out(JSON.stringify({ data: keys }, null, 2));
    else
      printTable(
        io,
        ['ID', 'NAME', 'MODE', 'HINT', 'SCOPES', 'EXPIRES', 'REVOKED', 'LAST USED'],
        keys.map((k) => [
          k.id,
          k.name,
          k.mode,
          `…${k.hint}`,
          k.scopes.join(','),
          k.expires_at ?? '-',
          k.revoked_at ?? '-',
          k.last_used_at ?? '-',
        ]),
      );
    return 0;
  },
};

const revokeCommand: Command = {
  kind: 'command',
  name: 'revoke',
  summary: 'Revoke an API key; it is refused with 401 from then on.',
  args: 'KEY_ID',
  options: { json: { type: 'boolean' } },
  help: { json: 'Print JSON.' },
  async run(values, positionals, io) {
    const id = positionals[0];
    if (!id) throw new UsageError('The key ID is required.');
    const key = await withAdmin(values, ({ services }) => services.keys.revoke(id, 'cli'));
    io.out(values.json ? JSON.stringify(key, null, 2) : `Revoked ${key.id} at ${key.revoked_at}.`);
    return 0;
  },
};

export const keysGroup: Group = {
  kind: 'group',
  name: 'keys',
  summary: 'Issue, list and revoke API keys.',
  children: [createCommand, listCommand, revokeCommand],
};
