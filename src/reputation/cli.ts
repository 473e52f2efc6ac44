/**
 * `posthorn admin ips requests|approve|decline`: the operator's review of dedicated-IP requests.
 * They act on the store, whether or not a server runs; a running server takes up an assignment
 * within a few seconds (dedicated-ips/source-policy.ts).
 */
import { type Command, type Group, requireOption, stringOption, UsageError } from '../cli/command.js';
import { withAdmin } from '../cli/context.js';
import { printTable } from '../cli/output.js';
import { requestView } from './dedicated-ips/service.js';

const STATUSES = ['pending', 'approved', 'declined'] as const;

const requestsCommand: Command = {
  kind: 'command',
  name: 'requests',
  summary: 'List dedicated-IP requests, newest first, with their reviews.',
  options: { status: { type: 'string' }, json: { type: 'boolean' } },
  help: { status: 'Only requests in this state: pending, approved or declined.', json: 'Print JSON.' },
  async run(values, _positionals, io) {
    const status = stringOption(values, 'status');
    if (status !== undefined && !(STATUSES as readonly string[]).includes(status))
      throw new UsageError(`--status must be one of ${STATUSES.join(', ')}.`);
    const rows = await withAdmin(values, ({ services }) =>
      services.reputation.dedicatedIps.list(status as (typeof STATUSES)[number] | undefined),
    );
    if (values.json) {
      io.out(
        JSON.stringify(
          { data: rows.map((row) => ({ project_id: row.project_id, ...requestView(row) })) },
          null,
          2,
        ),
      );
      return 0;
    }
    printTable(
      io,
      ['ID', 'PROJECT', 'MONTHLY VOLUME', 'STATUS', 'IP', 'PLAN', 'REQUESTED', 'REASON'],
      rows.map((row) => [
        row.id,
        row.project_id,
        String(row.monthly_volume),
        row.status,
        row.ip ?? '-',
        row.plan ?? '-',
        new Date(row.created_at).toISOString(),
        row.status === 'declined' ? `declined: ${row.review_note ?? ''}` : row.reason,
      ]),
    );
    return 0;
  },
};

const approveCommand: Command = {
  kind: 'command',
  name: 'approve',
  summary: 'Approve a request: the project sends from ADDRESS, ramping up by a warm-up plan.',
  args: 'REQUEST_ID',
  options: { ip: { type: 'string' }, plan: { type: 'string' }, json: { type: 'boolean' } },
  help: {
    ip: 'An address of delivery.source_ips, not assigned to another project. Required.',
    plan: 'Warm-up plan (default: reputation.default_warmup_plan, "standard" unless configured).',
    json: 'Print JSON.',
  },
  async run(values, positionals, io) {
    const id = positionals[0];
    if (!id) throw new UsageError('The request ID is required.');
    const ip = requireOption(values, 'ip');
    const view = await withAdmin(values, ({ services }) =>
      services.reputation.dedicatedIps.approve(id, { ip, plan: stringOption(values, 'plan') }, 'cli'),
    );
    io.out(
      values.json
        ? JSON.stringify(view, null, 2)
        : `Request ${view.id} approved: the project sends from ${view.review?.ip} with the warm-up plan "${view.review?.plan}".`,
    );
    return 0;
  },
};

const declineCommand: Command = {
  kind: 'command',
  name: 'decline',
  summary: 'Decline a request with a reason the project sees in GET /v1/reputation.',
  args: 'REQUEST_ID',
  options: { reason: { type: 'string' }, json: { type: 'boolean' } },
  help: { reason: 'Why, in a sentence the project can act on. Required.', json: 'Print JSON.' },
  async run(values, positionals, io) {
    const id = positionals[0];
    if (!id) throw new UsageError('The request ID is required.');
    const reason = requireOption(values, 'reason');
    const view = await withAdmin(values, ({ services }) =>
      services.reputation.dedicatedIps.decline(id, reason, 'cli'),
    );
    io.out(values.json ? JSON.stringify(view, null, 2) : `Request ${view.id} declined.`);
    return 0;
  },
};

export const ipsGroup: Group = {
  kind: 'group',
  name: 'ips',
  summary: 'Review dedicated-IP requests: list, approve with an address and a warm-up plan, decline.',
  children: [requestsCommand, approveCommand, declineCommand],
};
