/**
 * `posthorn admin incidents open|update|resolve|list` and `posthorn admin maintenance
 * schedule|update|complete|cancel|list`. They write to the store from their own process; a
 * running server notices within a second, updates the status, the feed and the page, and sends
 * the notices. `--json` prints an incident as the API shows it (`{"data": [...]}` for a list).
 */
import type { Command, Group, Values } from '../cli/command.js';
import { requireOption, stringOption, UsageError } from '../cli/command.js';
import { withAdmin } from '../cli/context.js';
import type { Io } from '../cli/command.js';
import { printTable } from '../cli/output.js';
import { COMPONENTS, IMPACTS, OPEN_INCIDENT_STATES } from './model.js';
import type { IncidentWithUpdates } from './incidents/store.js';
import { incidentView } from './views/incident-view.js';

function print(io: Io, values: Values, found: IncidentWithUpdates, verb: string): void {
  const view = incidentView(found);
  io.out(
    values.json
      ? JSON.stringify(view, null, 2)
      : `${view.kind === 'incident' ? 'Incident' : 'Maintenance'} ${view.id} ${verb} (${view.state}).`,
  );
}

function printList(io: Io, values: Values, list: readonly IncidentWithUpdates[]): void {
  if (values.json) {
    io.out(JSON.stringify({ data: list.map(incidentView) }, null, 2));
    return;
  }
  printTable(
    io,
    ['ID', 'KIND', 'STATE', 'IMPACT', 'COMPONENTS', 'OPENED', 'TITLE'],
    list.map(({ incident }) => [
      incident.id,
      incident.kind,
      incident.state,
      incident.impact,
      (JSON.parse(incident.components) as string[]).join(','),
      new Date(incident.created_at).toISOString().slice(0, 16).replace('T', ' '),
      incident.origin === 'automatic' ? `${incident.title} (automatic)` : incident.title,
    ]),
  );
}

function components(values: Values): string[] {
  const given = values.component;
  const list = Array.isArray(given) ? given : typeof given === 'string' ? [given] : [];
  if (list.length === 0)
    throw new UsageError(`--component is required (one of ${COMPONENTS.join(', ')}; repeat it for several).`);
  return list.flatMap((c) => c.split(',')).map((c) => c.trim());
}

function id(positionals: string[]): string {
  const value = positionals[0];
  if (!value) throw new UsageError('The incident ID is required.');
  return value;
}

function time(values: Values, name: string): number {
  const text = requireOption(values, name);
  const ms = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(ms))
    throw new UsageError(`--${name} must be an ISO 8601 date-time, e.g. 2026-12-01T02:00:00Z.`);
  return ms;
}

const json = { json: { type: 'boolean' } } as const;
const jsonHelp = { json: 'Print the incident as JSON.' };

const listOptions = { ...json, open: { type: 'boolean' }, limit: { type: 'string' } } as const;
function listLimit(values: Values): number {
  const text = stringOption(values, 'limit') ?? '20';
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new UsageError('--limit must be a whole number from 1 to 1000.');
  return n;
}

const incidentCommands: Command[] = [
  {
    kind: 'command',
    name: 'open',
    summary: 'Open an incident: it shows on the status page and feed, and subscribers are told.',
    options: {
      title: { type: 'string' },
      component: { type: 'string', multiple: true },
      impact: { type: 'string' },
      message: { type: 'string' },
      ...json,
    },
    help: {
      title: 'What is wrong, in a few words. Required.',
      component: `An affected component: ${COMPONENTS.join(', ')}. Required; repeat for several.`,
      impact: `${IMPACTS.join(', ')}. Required.`,
      message: 'The first update, for the page, the feed and the subscribers. Required.',
      ...jsonHelp,
    },
    async run(values, _positionals, io) {
      const input = {
        title: requireOption(values, 'title'),
        components: components(values),
        impact: requireOption(values, 'impact'),
        message: requireOption(values, 'message'),
      };
      print(
        io,
        values,
        await withAdmin(values, ({ services }) => services.status.incidents.open(input)),
        'opened',
      );
      return 0;
    },
  },
  {
    kind: 'command',
    name: 'update',
    summary: 'Post an update to an open incident and move it to a new state.',
    args: 'ID',
    options: { state: { type: 'string' }, message: { type: 'string' }, ...json },
    help: {
      state: `${OPEN_INCIDENT_STATES.join(', ')}. Required.`,
      message: 'The update. Required.',
      ...jsonHelp,
    },
    async run(values, positionals, io) {
      const state = requireOption(values, 'state');
      const message = requireOption(values, 'message');
      const found = await withAdmin(values, ({ services }) =>
        services.status.incidents.update(id(positionals), state, message),
      );
      print(io, values, found, 'updated');
      return 0;
    },
  },
  {
    kind: 'command',
    name: 'resolve',
    summary: 'Resolve an incident with a closing message.',
    args: 'ID',
    options: { message: { type: 'string' }, ...json },
    help: { message: 'The closing update. Required.', ...jsonHelp },
    async run(values, positionals, io) {
      const message = requireOption(values, 'message');
      const found = await withAdmin(values, ({ services }) =>
        services.status.incidents.resolve(id(positionals), message),
      );
      print(io, values, found, 'resolved');
      return 0;
    },
  },
  {
    kind: 'command',
    name: 'list',
    summary: 'List incidents and maintenance windows, newest first.',
    options: listOptions,
    help: {
      json: 'Print JSON.',
      open: 'Only those not resolved, completed or cancelled.',
      limit: 'How many (default 20).',
    },
    async run(values, _positionals, io) {
      const limit = listLimit(values);
      const list = await withAdmin(values, ({ services }) =>
        services.status.incidents.list(limit, undefined, values.open === true),
      );
      printList(io, values, list);
      return 0;
    },
  },
];

const maintenanceCommands: Command[] = [
  {
    kind: 'command',
    name: 'schedule',
    summary: 'Announce a maintenance window; it starts and completes by itself at its times.',
    options: {
      title: { type: 'string' },
      component: { type: 'string', multiple: true },
      starts: { type: 'string' },
      ends: { type: 'string' },
      message: { type: 'string' },
      ...json,
    },
    help: {
      title: 'What will be done. Required.',
      component: `A component it affects: ${COMPONENTS.join(', ')}. Required; repeat for several.`,
      starts: 'Start, ISO 8601 (e.g. 2026-12-01T02:00:00Z). Required.',
      ends: 'End, ISO 8601, after the start. Required.',
      message: 'The announcement. Required.',
      ...jsonHelp,
    },
    async run(values, _positionals, io) {
      const input = {
        title: requireOption(values, 'title'),
        components: components(values),
        startsAt: time(values, 'starts'),
        endsAt: time(values, 'ends'),
        message: requireOption(values, 'message'),
      };
      print(
        io,
        values,
        await withAdmin(values, ({ services }) => services.status.incidents.scheduleMaintenance(input)),
        'scheduled',
      );
      return 0;
    },
  },
  ...(
    [
      ['update', 'Post an update to a maintenance window.', 'updateMaintenance', 'updated'],
      ['complete', 'Complete a maintenance window now.', 'completeMaintenance', 'completed'],
      ['cancel', 'Cancel a maintenance window.', 'cancelMaintenance', 'cancelled'],
    ] as const
  ).map(
    ([name, summary, method, verb]): Command => ({
      kind: 'command',
      name,
      summary,
      args: 'ID',
      options: { message: { type: 'string' }, ...json },
      help: { message: 'The update. Required.', ...jsonHelp },
      async run(values, positionals, io) {
        const message = requireOption(values, 'message');
        const found = await withAdmin(values, ({ services }) =>
          services.status.incidents[method](id(positionals), message),
        );
        print(io, values, found, verb);
        return 0;
      },
    }),
  ),
  {
    kind: 'command',
    name: 'list',
    summary: 'List maintenance windows, newest first.',
    options: listOptions,
    help: {
      json: 'Print JSON.',
      open: 'Only those scheduled or in progress.',
      limit: 'How many (default 20).',
    },
    async run(values, _positionals, io) {
      const limit = listLimit(values);
      const list = await withAdmin(values, ({ services }) =>
        services.status.incidents.list(limit, undefined, values.open === true, 'maintenance'),
      );
      printList(io, values, list);
      return 0;
    },
  },
];

export const incidentsGroup: Group = {
  kind: 'group',
  name: 'incidents',
  summary: 'Incidents of the public status page: open, update, resolve, list.',
  children: incidentCommands,
};

export const maintenanceGroup: Group = {
  kind: 'group',
  name: 'maintenance',
  summary: 'Maintenance windows of the public status page: schedule, update, complete, cancel, list.',
  children: maintenanceCommands,
};
