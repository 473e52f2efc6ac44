/** `posthorn admin ...`: operator commands that act on the store directly. */
import {
  type Command,
  type Group,
  MAX_NAME_CHARS,
  nameOption,
  requireOption,
  UsageError,
} from './command.js';
import { keysGroup } from './admin-keys.js';
import { usersGroup } from './admin-users.js';
import { ipsGroup } from '../reputation/cli.js';
import { buildServices } from '../services.js';
import { withAdmin } from './context.js';
import { printTable } from './output.js';
import type { ProjectView } from '../projects/service.js';
import { incidentsGroup, maintenanceGroup } from '../status/cli.js';

/** A project as `--json` prints it: snake_case keys, as the API and the other commands' JSON. */
const projectJson = (project: ProjectView) => ({
  id: project.id,
  organization_id: project.organizationId,
  name: project.name,
  status: project.status,
});

const bootstrapCommand: Command = {
  kind: 'command',
  name: 'bootstrap',
  summary: 'Create an organization with its owner, a sandbox project and a full-access API key.',
  options: {
    email: { type: 'string' },
    org: { type: 'string' },
    project: { type: 'string' },
    json: { type: 'boolean' },
  },
  help: {
    email: "The owner's email address. Required.",
    org: `Organization name (at most ${MAX_NAME_CHARS} characters). Required; a name already taken (ignoring case) is refused.`,
    project: `Project name (at most ${MAX_NAME_CHARS} characters; default: "Default").`,
    json: 'Print JSON: organization_id, project_id, user_id, api_key_id, api_key.',
  },
  async run(values, _positionals, io) {
    const email = requireOption(values, 'email').trim();
    if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email))
      throw new UsageError(`--email "${email}" is not an email address.`);
    const organization = nameOption(values, 'org', 'organization');
    if (organization === undefined) throw new UsageError('--org is required.');
    const project = nameOption(values, 'project', 'project') ?? 'Default';
    const result = await withAdmin(values, ({ kernel }) =>
      kernel.db.transaction().execute(async (trx) => {
        const services = buildServices({ ...kernel, db: trx });
        const ids = await services.projects.bootstrap({ email, organization, project }, 'cli');
        const key = await services.keys.create(
          { projectId: ids.projectId, scopes: ['full_access'], mode: 'live', name: 'bootstrap' },
          'cli',
        );
        return { ...ids, apiKey: key.key, keyId: key.view.id };
      }),
    );
    if (values.json) {
      io.out(
        JSON.stringify(
          {
            organization_id: result.organizationId,
            project_id: result.projectId,
            user_id: result.userId,
            api_key_id: result.keyId,
            api_key: result.apiKey,
          },
          null,
          2,
        ),
      );
    } else {
      io.out(
        `Organization ${result.organizationId}, project ${result.projectId} (sandbox), owner ${result.userId}.`,
      );
      io.out(`Full-access API key ${result.keyId} (shown once, store it now): ${result.apiKey}`);
    }
    return 0;
  },
};

const projectsList: Command = {
  kind: 'command',
  name: 'list',
  summary: 'List every project with its organization and status.',
  options: { json: { type: 'boolean' } },
  help: { json: 'Print JSON.' },
  async run(values, _positionals, io) {
    const projects = await withAdmin(values, ({ services }) => services.projects.list());
    if (values.json) {
      const data = projects.map((p) => ({ ...projectJson(p), organization_name: p.organizationName }));
      io.out(JSON.stringify({ data }, null, 2));
    } else
      printTable(
        io,
        ['ID', 'NAME', 'STATUS', 'ORGANIZATION'],
        projects.map((p) => [p.id, p.name, p.status, p.organizationName]),
      );
    return 0;
  },
};

function statusCommand(
  name: 'activate' | 'suspend',
  status: 'active' | 'suspended',
  summary: string,
): Command {
  return {
    kind: 'command',
    name,
    summary,
    args: 'PROJECT_ID',
    options: { json: { type: 'boolean' } },
    help: { json: 'Print JSON.' },
    async run(values, positionals, io) {
      const id = positionals[0];
      if (!id) throw new UsageError('The project ID is required.');
      const project = await withAdmin(values, ({ services }) =>
        services.projects.setStatus(id, status, 'cli'),
      );
      io.out(
        values.json
          ? JSON.stringify(projectJson(project), null, 2)
          : `Project ${project.id} is now ${project.status}.`,
      );
      return 0;
    },
  };
}

const projectsGroup: Group = {
  kind: 'group',
  name: 'projects',
  summary: 'List projects and change their status.',
  children: [
    projectsList,
    statusCommand('activate', 'active', 'Activate a project: it may send from its verified domains.'),
    statusCommand('suspend', 'suspended', 'Suspend a project: its sends are refused with 403.'),
  ],
};

export const adminGroup: Group = {
  kind: 'group',
  name: 'admin',
  summary: 'Operator commands: organizations, projects, API keys, incidents, maintenance and dedicated IPs.',
  children: [
    bootstrapCommand,
    keysGroup,
    projectsGroup,
    usersGroup,
    incidentsGroup,
    maintenanceGroup,
    ipsGroup,
  ],
};
